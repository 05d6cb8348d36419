package domain

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Currency is an ISO 4217 currency code such as "EUR".
type Currency string

// exponents lists the currencies the lab knows and their number of minor
// digits. A currency not listed here is rejected rather than guessed.
var exponents = map[Currency]int{
	"CHF": 2,
	"EUR": 2,
	"GBP": 2,
	"JPY": 0,
	"USD": 2,
}

// knownCurrencies is the sorted list of valid codes, for error messages.
const knownCurrencies = "CHF, EUR, GBP, JPY, USD"

// ErrMoney is wrapped by every error about a malformed amount or currency.
var ErrMoney = errors.New("invalid money")

// ErrCurrencyMismatch is returned when two amounts of different currencies are
// combined.
var ErrCurrencyMismatch = errors.New("currency mismatch")

// Money is an amount in integer minor units of a currency: Money{1000, "EUR"}
// is 10.00 EUR. The zero value has no currency and is not valid money.
type Money struct {
	Minor    int64
	Currency Currency
}

// ParseCurrency checks that code is a currency the lab knows.
func ParseCurrency(code string) (Currency, error) {
	c := Currency(code)
	if _, ok := exponents[c]; !ok {
		return "", fmt.Errorf("%w: unknown currency %q (valid: %s)", ErrMoney, code, knownCurrencies)
	}
	return c, nil
}

// ParseMoney parses a decimal amount such as "10.00", "10.5" or "-3" in the
// given currency. It accepts at most as many decimals as the currency has
// minor digits, no exponent, no thousands separator and no leading '+'.
func ParseMoney(amount, currency string) (Money, error) {
	c, err := ParseCurrency(currency)
	if err != nil {
		return Money{}, err
	}
	digits := exponents[c]
	s := amount
	negative := strings.HasPrefix(s, "-")
	if negative {
		s = s[1:]
	}
	whole, frac, hasPoint := strings.Cut(s, ".")
	if whole == "" || (hasPoint && frac == "") || !allDigits(whole) || !allDigits(frac) {
		return Money{}, fmt.Errorf("%w: malformed amount %q (want digits with an optional '.' and up to %d decimals, e.g. \"10.00\")", ErrMoney, amount, digits)
	}
	if len(frac) > digits {
		return Money{}, fmt.Errorf("%w: amount %q has %d decimals, %s allows %d", ErrMoney, amount, len(frac), c, digits)
	}
	frac += strings.Repeat("0", digits-len(frac))
	var minor int64
	for _, r := range whole + frac {
		d := int64(r - '0')
		if minor > (math.MaxInt64-d)/10 {
			return Money{}, fmt.Errorf("%w: amount %q is too large", ErrMoney, amount)
		}
		minor = minor*10 + d
	}
	if negative {
		minor = -minor
	}
	return Money{Minor: minor, Currency: c}, nil
}

// MustMoney is ParseMoney for literals in tests and examples; it panics on a
// malformed literal, which is a bug in the calling code.
func MustMoney(amount, currency string) Money {
	m, err := ParseMoney(amount, currency)
	if err != nil {
		panic(err)
	}
	return m
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Amount formats the amount without the currency, e.g. "10.00".
func (m Money) Amount() string {
	sign, u := "", uint64(m.Minor)
	if m.Minor < 0 {
		sign, u = "-", -u // two's complement: right for math.MinInt64 too
	}
	digits := exponents[m.Currency]
	if digits == 0 {
		return sign + strconv.FormatUint(u, 10)
	}
	scale := uint64(math.Pow10(digits))
	return fmt.Sprintf("%s%d.%0*d", sign, u/scale, digits, u%scale)
}

// String formats money as "10.00 EUR".
func (m Money) String() string {
	return m.Amount() + " " + string(m.Currency)
}

// IsPositive reports whether the amount is greater than zero.
func (m Money) IsPositive() bool { return m.Minor > 0 }

// Add returns m + o; both must have the same currency.
func (m Money) Add(o Money) (Money, error) {
	if m.Currency != o.Currency {
		return Money{}, fmt.Errorf("add %s to %s: %w", o, m, ErrCurrencyMismatch)
	}
	if (o.Minor > 0 && m.Minor > math.MaxInt64-o.Minor) || (o.Minor < 0 && m.Minor < math.MinInt64-o.Minor) {
		return Money{}, fmt.Errorf("add %s to %s: %w: overflow", o, m, ErrMoney)
	}
	return Money{Minor: m.Minor + o.Minor, Currency: m.Currency}, nil
}

// wireMoney is money as it appears in an event: the amount as a decimal
// string, never a float, and the currency code.
type wireMoney struct {
	Amount   *string `json:"amount"`
	Currency *string `json:"currency"`
}

// MarshalJSON encodes money as {"amount":"10.00","currency":"EUR"}.
func (m Money) MarshalJSON() ([]byte, error) {
	if _, err := ParseCurrency(string(m.Currency)); err != nil {
		return nil, err
	}
	// Digits, a point, a sign and a known currency code need no escaping.
	return fmt.Appendf(nil, `{"amount":"%s","currency":"%s"}`, m.Amount(), m.Currency), nil
}

// UnmarshalJSON decodes {"amount":"10.00","currency":"EUR"} with
// ParseMoney; both fields are required.
func (m *Money) UnmarshalJSON(b []byte) error {
	var w wireMoney
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("%w: %w", ErrMoney, err)
	}
	if w.Amount == nil || w.Currency == nil {
		return fmt.Errorf("%w: want {\"amount\": \"10.00\", \"currency\": \"EUR\"}, got %s", ErrMoney, b)
	}
	parsed, err := ParseMoney(*w.Amount, *w.Currency)
	if err != nil {
		return err
	}
	*m = parsed
	return nil
}
