package domain_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"outboxlab/domain"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestOrderLifecycle(t *testing.T) {
	o, accepted, err := domain.AcceptOrder("o-1", domain.MustMoney("10.00", "EUR"), epoch)
	if err != nil {
		t.Fatal(err)
	}
	o, amended, err := o.Amend(domain.MustMoney("2.50", "EUR"), "gift wrap", epoch.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	o, cancelled, err := o.Cancel("customer changed mind", epoch.Add(2*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if got := []int{accepted.Seq(), amended.Seq(), cancelled.Seq(), o.Version}; !cmp.Equal(got, []int{1, 2, 3, 3}) {
		t.Fatalf("sequences = %v, want [1 2 3 3]", got)
	}
	if o.Total != domain.MustMoney("12.50", "EUR") || o.Status != domain.Cancelled {
		t.Fatalf("order = %+v", o)
	}
	if _, _, err := o.Cancel("again", epoch); !errors.Is(err, domain.ErrOrder) {
		t.Errorf("second cancel: err = %v, want ErrOrder", err)
	}
	if _, _, err := o.Amend(domain.MustMoney("1.00", "EUR"), "", epoch); !errors.Is(err, domain.ErrOrder) {
		t.Errorf("amend after cancel: err = %v, want ErrOrder", err)
	}
}

func TestOrderRejectsInvalidChanges(t *testing.T) {
	if _, _, err := domain.AcceptOrder("o-1", domain.MustMoney("0", "EUR"), epoch); !errors.Is(err, domain.ErrOrder) {
		t.Errorf("zero total: err = %v", err)
	}
	if _, _, err := domain.AcceptOrder("o-1", domain.MustMoney("-1", "EUR"), epoch); !errors.Is(err, domain.ErrOrder) {
		t.Errorf("negative total: err = %v", err)
	}
	if _, _, err := domain.AcceptOrder("", domain.MustMoney("1", "EUR"), epoch); !errors.Is(err, domain.ErrOrder) {
		t.Errorf("empty id: err = %v", err)
	}
	o, _, _ := domain.AcceptOrder("o-1", domain.MustMoney("1", "EUR"), epoch)
	if _, _, err := o.Amend(domain.MustMoney("1", "USD"), "", epoch); !errors.Is(err, domain.ErrCurrencyMismatch) {
		t.Errorf("amend in USD: err = %v", err)
	}
	if _, _, err := o.Amend(domain.MustMoney("-1", "EUR"), "", epoch); !errors.Is(err, domain.ErrOrder) {
		t.Errorf("negative amendment: err = %v", err)
	}
}

func TestEventRoundTrip(t *testing.T) {
	events := []domain.Event{
		domain.OrderAccepted{OrderID: "o-1", Sequence: 1, Total: domain.MustMoney("10.00", "EUR"), AcceptedAt: epoch},
		domain.OrderAmended{OrderID: "o-1", Sequence: 2, Amount: domain.MustMoney("0.99", "EUR"), Note: "express", AmendedAt: epoch},
		domain.OrderCancelled{OrderID: "o-1", Sequence: 3, Reason: "fraud", CancelledAt: epoch},
	}
	for _, e := range events {
		r, err := domain.Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		if r.Type != e.EventType() || r.Version != 1 || r.AggregateID != "o-1" || r.Sequence != e.Seq() || r.AggregateType != "Order" {
			t.Errorf("record = %+v", r)
		}
		got, err := domain.Decode(r)
		if err != nil {
			t.Fatalf("Decode(%+v): %v", r, err)
		}
		if diff := cmp.Diff(e, got); diff != "" {
			t.Errorf("round trip of %s (-want +got):\n%s", e.EventType(), diff)
		}
	}
}

func TestDecodeRefusesWhatItDoesNotKnow(t *testing.T) {
	good, _ := domain.Encode(domain.OrderAccepted{OrderID: "o-1", Sequence: 1, Total: domain.MustMoney("10.00", "EUR"), AcceptedAt: epoch})
	cases := []struct {
		name   string
		change func(*domain.Record)
		want   error
	}{
		{"unknown type", func(r *domain.Record) { r.Type = "OrderShipped" }, domain.ErrUnknownEvent},
		{"unknown version", func(r *domain.Record) { r.Version = 7 }, domain.ErrUnknownVersion},
		{"not JSON", func(r *domain.Record) { r.Payload = "{" }, domain.ErrMalformedEvent},
		{"trailing data", func(r *domain.Record) { r.Payload += "{}" }, domain.ErrMalformedEvent},
		{"total as float", func(r *domain.Record) {
			r.Payload = `{"orderId":"o-1","sequence":1,"total":{"amount":10.0,"currency":"EUR"},"acceptedAt":"2026-01-01T00:00:00Z"}`
		}, domain.ErrMoney},
		{"total without currency", func(r *domain.Record) {
			r.Payload = `{"orderId":"o-1","sequence":1,"total":{"amount":"10.00"},"acceptedAt":"2026-01-01T00:00:00Z"}`
		}, domain.ErrMoney},
		{"total with three decimals", func(r *domain.Record) {
			r.Payload = `{"orderId":"o-1","sequence":1,"total":{"amount":"10.001","currency":"EUR"},"acceptedAt":"2026-01-01T00:00:00Z"}`
		}, domain.ErrMoney},
		{"total zero", func(r *domain.Record) {
			r.Payload = `{"orderId":"o-1","sequence":1,"total":{"amount":"0.00","currency":"EUR"},"acceptedAt":"2026-01-01T00:00:00Z"}`
		}, domain.ErrMalformedEvent},
		{"missing total", func(r *domain.Record) { r.Payload = `{"orderId":"o-1","sequence":1}` }, domain.ErrMalformedEvent},
		{"null total", func(r *domain.Record) {
			r.Payload = `{"orderId":"o-1","sequence":1,"total":null,"acceptedAt":"2026-01-01T00:00:00Z"}`
		}, domain.ErrMalformedEvent},
		{"time not a time", func(r *domain.Record) {
			r.Payload = `{"orderId":"o-1","sequence":1,"total":{"amount":"10.00","currency":"EUR"},"acceptedAt":"yesterday"}`
		}, domain.ErrMalformedEvent},
		{"other aggregate", func(r *domain.Record) { r.AggregateID = "o-2" }, domain.ErrMalformedEvent},
		{"other sequence", func(r *domain.Record) { r.Sequence = 2 }, domain.ErrMalformedEvent},
	}
	for _, c := range cases {
		r := good
		c.change(&r)
		if _, err := domain.Decode(r); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
}

func TestOrderAcceptedV2IsACompatibleChange(t *testing.T) {
	v2 := domain.OrderAccepted{OrderID: "o-1", Sequence: 1, Total: domain.MustMoney("10.00", "EUR"), AcceptedAt: epoch, CustomerID: "c-77"}
	r, err := domain.Encode(v2)
	if err != nil {
		t.Fatal(err)
	}
	if r.Version != 2 {
		t.Fatalf("version = %d, want 2 for an event with a customer id", r.Version)
	}
	got, err := domain.Decode(r)
	if err != nil || got.(domain.OrderAccepted).CustomerID != "c-77" {
		t.Fatalf("decode v2 = %+v, %v", got, err)
	}
	v1 := v2
	v1.CustomerID = ""
	if r, _ := domain.Encode(v1); r.Version != 1 || strings.Contains(r.Payload, "customerId") {
		t.Fatalf("an event without a customer id is written as v1 without the field: %+v", r)
	}
	// A v1 record whose payload carries the v2 field still decodes: readers
	// tolerate fields they do not know.
	r.Version = 1
	if _, err := domain.Decode(r); err != nil {
		t.Fatalf("v1 record with the v2 field: %v", err)
	}
	r.Version = 3
	if _, err := domain.Decode(r); !errors.Is(err, domain.ErrUnknownVersion) {
		t.Fatalf("v3: err = %v, want ErrUnknownVersion", err)
	}
	amended, _ := domain.Encode(domain.OrderAmended{OrderID: "o-1", Sequence: 2, Amount: domain.MustMoney("1", "EUR")})
	amended.Version = 2
	if _, err := domain.Decode(amended); !errors.Is(err, domain.ErrUnknownVersion) {
		t.Fatalf("OrderAmended v2: err = %v, want ErrUnknownVersion", err)
	}
}
