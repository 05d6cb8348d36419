package domain_test

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"outboxlab/domain"
)

func TestParseMoney(t *testing.T) {
	good := []struct {
		amount, currency string
		want             domain.Money
		text             string
	}{
		{"10.00", "EUR", domain.Money{Minor: 1000, Currency: "EUR"}, "10.00 EUR"},
		{"10.5", "EUR", domain.Money{Minor: 1050, Currency: "EUR"}, "10.50 EUR"},
		{"7", "USD", domain.Money{Minor: 700, Currency: "USD"}, "7.00 USD"},
		{"0.01", "CHF", domain.Money{Minor: 1, Currency: "CHF"}, "0.01 CHF"},
		{"-3.20", "EUR", domain.Money{Minor: -320, Currency: "EUR"}, "-3.20 EUR"},
		{"1500", "JPY", domain.Money{Minor: 1500, Currency: "JPY"}, "1500 JPY"},
	}
	for _, c := range good {
		got, err := domain.ParseMoney(c.amount, c.currency)
		if err != nil {
			t.Errorf("ParseMoney(%q, %q): %v", c.amount, c.currency, err)
			continue
		}
		if got != c.want || got.String() != c.text {
			t.Errorf("ParseMoney(%q, %q) = %#v (%s), want %#v (%s)", c.amount, c.currency, got, got, c.want, c.text)
		}
	}
	bad := []struct{ amount, currency string }{
		{"10,00", "EUR"}, {"abc", "EUR"}, {"1e3", "EUR"}, {"", "EUR"}, {".5", "EUR"},
		{"5.", "EUR"}, {"+5", "EUR"}, {"10.001", "EUR"}, {"1.5", "JPY"}, {"10.00", "eur"},
		{"10.00", "XXX"}, {"10.00", ""}, {"99999999999999999999", "EUR"}, {"--1", "EUR"}, {" 1", "EUR"},
	}
	for _, c := range bad {
		if got, err := domain.ParseMoney(c.amount, c.currency); !errors.Is(err, domain.ErrMoney) {
			t.Errorf("ParseMoney(%q, %q) = %v, %v; want an ErrMoney", c.amount, c.currency, got, err)
		}
	}
}

func TestMoneyAddRejectsMixedCurrencies(t *testing.T) {
	sum, err := domain.MustMoney("1.50", "EUR").Add(domain.MustMoney("2.75", "EUR"))
	if err != nil || sum != domain.MustMoney("4.25", "EUR") {
		t.Fatalf("1.50 EUR + 2.75 EUR = %v, %v", sum, err)
	}
	if _, err := domain.MustMoney("1.50", "EUR").Add(domain.MustMoney("1.50", "USD")); !errors.Is(err, domain.ErrCurrencyMismatch) {
		t.Fatalf("EUR + USD: err = %v, want ErrCurrencyMismatch", err)
	}
}

func TestMoneyJSONIsDecimalStringNotFloat(t *testing.T) {
	b, err := json.Marshal(domain.MustMoney("19.99", "EUR"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"amount":"19.99","currency":"EUR"}`; got != want {
		t.Fatalf("json = %s, want %s", got, want)
	}
	var m domain.Money
	if err := json.Unmarshal(b, &m); err != nil || m != domain.MustMoney("19.99", "EUR") {
		t.Fatalf("round trip = %v, %v", m, err)
	}
	for _, in := range []string{`{"amount":19.99,"currency":"EUR"}`, `{"amount":"19.999","currency":"EUR"}`, `{"amount":"1","currency":"ABC"}`, `[]`} {
		if err := json.Unmarshal([]byte(in), &m); !errors.Is(err, domain.ErrMoney) {
			t.Errorf("Unmarshal(%s): err = %v, want ErrMoney", in, err)
		}
	}
}

func TestAmountWritesMinorUnitsAsDecimals(t *testing.T) {
	for _, c := range []struct {
		minor    int64
		currency domain.Currency
		want     string
	}{
		{1000, "EUR", "10.00"}, {5, "EUR", "0.05"}, {-5, "EUR", "-0.05"}, {0, "EUR", "0.00"},
		{1500, "JPY", "1500"}, {-1500, "JPY", "-1500"}, {1234, "GBP", "12.34"}, {7, "USD", "0.07"},
		{math.MinInt64, "EUR", "-92233720368547758.08"}, {math.MaxInt64, "JPY", "9223372036854775807"},
	} {
		if got := (domain.Money{Minor: c.minor, Currency: c.currency}).Amount(); got != c.want {
			t.Errorf("Money{%d, %s}.Amount() = %q, want %q", c.minor, c.currency, got, c.want)
		}
	}
}
