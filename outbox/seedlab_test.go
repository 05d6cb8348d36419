package outbox_test

// The four tests of the course's Java lab (chapter 000, section 10), with the
// same timings.

import (
	"testing"
	"time"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/store"
)

type fixedIDs struct{ next int }

func (f *fixedIDs) NewID() string { f.next++; return "e-" + string(rune('0'+f.next)) }

func TestOrderAndOutboxAreWrittenTogether(t *testing.T) {
	f := newFixture(t)
	if err := orders.Install(f.db); err != nil {
		t.Fatal(err)
	}
	svc := &orders.Service{DB: f.db, Gate: effect.Direct{}, Clock: f.clock, IDs: &fixedIDs{}, Owner: "service"}
	if err := svc.Handle(orders.Command{Kind: orders.Place, OrderID: "O-1", Amount: domain.MustMoney("10.00", "EUR")}); err != nil {
		t.Fatal(err)
	}
	if n := f.db.Len(orders.Table); n != 1 {
		t.Errorf("orders = %d, want 1 (order saved)", n)
	}
	all := outbox.All(f.db)
	if len(all) != 1 || all[0].Status != outbox.Pending || all[0].Event.AggregateID != "O-1" {
		t.Errorf("outbox = %v, want one PENDING message for O-1", all)
	}
}

func TestBrokerFailureKeepsMessageRetryable(t *testing.T) {
	f := newFixture(t)
	m := f.add("O-2", 1)
	f.broker.FailNextPublishes(1)
	r := f.relay("relay-1", func(c *outbox.Config) { c.BatchSize, c.MaxAttempts = 10, 3 })
	f.step(r)
	if got := f.message(m.Key); got.Status != outbox.Failed || got.Attempts != 1 || got.LastError == "" {
		t.Fatalf("after broker error: %+v, want FAILED with 1 attempt and the error", got)
	}
	f.clock.Advance(20 * time.Second)
	f.step(r)
	if got := f.message(m.Key); got.Status != outbox.Sent {
		t.Fatalf("after retry at +20s: %s, want SENT", got.Status)
	}
}

func TestDuplicateDeliveryCreatesOnlyOneInvoice(t *testing.T) {
	db := store.New("billing")
	if err := billing.Install(db); err != nil {
		t.Fatal(err)
	}
	c := &clock{T: t0}
	b := broker.New(c)
	if err := b.Subscribe("billing"); err != nil {
		t.Fatal(err)
	}
	rec, err := domain.Encode(domain.OrderAccepted{OrderID: "O-3", Sequence: 1, Total: domain.MustMoney("10.00", "EUR"), AcceptedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	event := broker.Envelope{ID: "e-3", Event: rec}
	for range 2 {
		if err := b.Publish(event); err != nil {
			t.Fatal(err)
		}
	}
	consumer, err := inbox.NewConsumer(inbox.DefaultConfig("billing", "billing"), inbox.Deps{DB: db, Broker: b, Gate: effect.Direct{}, Clock: c, Effect: billing.ApplyEffect})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if did, err := consumer.Step(); !did || err != nil {
			t.Fatalf("step: %v, %v", did, err)
		}
	}
	if n := len(billing.Ledger(db)); n != 1 {
		t.Fatalf("invoices = %d, want only one", n)
	}
	if b.Pending("billing") != 0 {
		t.Fatalf("the duplicate was not acknowledged: %d pending", b.Pending("billing"))
	}
}

func TestMaxAttemptsMovesToDeadLetter(t *testing.T) {
	f := newFixture(t)
	f.broker.FailNextPublishes(5)
	m := f.add("O-4", 1)
	r := f.relay("relay-1", func(c *outbox.Config) { c.BatchSize, c.MaxAttempts = 10, 2 })
	f.step(r)
	f.clock.Advance(time.Minute)
	f.step(r)
	if got := f.message(m.Key); got.Status != outbox.DeadLetter || got.Attempts != 2 {
		t.Fatalf("after attempts at +0s and +60s: %s with %d attempts, want DEAD_LETTER with 2", got.Status, got.Attempts)
	}
}
