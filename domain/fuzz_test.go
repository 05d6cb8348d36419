package domain_test

import (
	"errors"
	"testing"

	"outboxlab/domain"
)

// FuzzDecode feeds arbitrary records to Decode: it must return an event or
// an error, never panic, and a decoded event must encode back to a record
// that decodes to the same event.
func FuzzDecode(f *testing.F) {
	for _, e := range []domain.Event{
		domain.OrderAccepted{OrderID: "o-1", Sequence: 1, Total: domain.MustMoney("10.00", "EUR"), AcceptedAt: epoch, CustomerID: "c-1"},
		domain.OrderAmended{OrderID: "o-1", Sequence: 2, Amount: domain.MustMoney("1.50", "EUR"), Note: "x"},
		domain.OrderCancelled{OrderID: "o-1", Sequence: 3, Reason: "y"},
		domain.ClaimReleased{ClaimID: "4711", Sequence: 1, Amount: domain.MustMoney("1250.00", "EUR")},
	} {
		r, _ := domain.Encode(e)
		f.Add(r.Type, r.Version, r.AggregateID, r.Sequence, r.Payload)
	}
	f.Add("OrderAccepted", 1, "o-1", 1, `{"orderId":"o-1","sequence":1,"total":{"amount":1e309,"currency":"EUR"}}`)
	f.Fuzz(func(t *testing.T, typ string, version int, agg string, seq int, payload string) {
		r := domain.Record{Type: typ, Version: version, AggregateID: agg, Sequence: seq, Payload: payload}
		e, err := domain.Decode(r)
		if err != nil {
			if !errors.Is(err, domain.ErrUnknownEvent) && !errors.Is(err, domain.ErrUnknownVersion) && !errors.Is(err, domain.ErrMalformedEvent) {
				t.Fatalf("Decode(%+v): error %v wraps none of the sentinel errors", r, err)
			}
			return
		}
		back, err := domain.Encode(e)
		if err != nil {
			t.Fatalf("Encode(%+v) of a decoded event: %v", e, err)
		}
		again, err := domain.Decode(back)
		if err != nil || again != e {
			t.Fatalf("round trip of %+v: %+v, %v", e, again, err)
		}
	})
}

// FuzzParseMoney: any input gives money or an ErrMoney, and money formats
// back to an amount that parses to the same value.
func FuzzParseMoney(f *testing.F) {
	for _, s := range []string{"10.00", "-3.2", "0", "1e3", "99999999999999999999", "10,00", ".5", "5.", "--1", "١٢"} {
		f.Add(s, "EUR")
	}
	f.Add("1500", "JPY")
	f.Fuzz(func(t *testing.T, amount, currency string) {
		m, err := domain.ParseMoney(amount, currency)
		if err != nil {
			if !errors.Is(err, domain.ErrMoney) {
				t.Fatalf("ParseMoney(%q, %q): error %v is not an ErrMoney", amount, currency, err)
			}
			return
		}
		back, err := domain.ParseMoney(m.Amount(), string(m.Currency))
		if err != nil || back != m {
			t.Fatalf("ParseMoney(%q, %q) = %v, which formats to %q and parses to %v, %v", amount, currency, m, m.Amount(), back, err)
		}
	})
}
