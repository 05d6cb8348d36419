package outbox_test

import (
	"fmt"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/effect/effecttest"
	"outboxlab/outbox"
	"outboxlab/store"
)

// A message is appended in the business transaction; the relay claims it,
// sends it, and marks it SENT only after the broker acknowledged it. A
// broker failure makes it FAILED and due again after the backoff.
func ExampleRelay() {
	clock := &effecttest.Clock{T: time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)}
	db := store.New("orders")
	if err := outbox.Install(db); err != nil {
		panic(err)
	}
	b := broker.New(clock)

	tx := db.Begin("service")
	event := domain.OrderAccepted{OrderID: "o-1", Sequence: 1, Total: domain.MustMoney("10.00", "EUR"), AcceptedAt: clock.Now()}
	if _, err := outbox.Append(tx, "e-5531", event, clock.Now()); err != nil {
		panic(err)
	}
	if err := tx.Commit(); err != nil {
		panic(err)
	}

	relay, err := outbox.NewRelay(outbox.DefaultConfig("relay-1"), outbox.Deps{DB: db, Broker: b, Gate: effect.Direct{}, Clock: clock})
	if err != nil {
		panic(err)
	}
	b.FailNextPublishes(1)
	for _, wait := range []time.Duration{0, 2 * time.Second} {
		clock.Advance(wait)
		rep, _ := relay.Step()
		m := outbox.All(db)[0]
		fmt.Printf("+%s: sent %d, failed %d: %s, attempts %d\n", wait, rep.Sent, rep.Failed, m.Status, m.Attempts)
	}
	// Output:
	// +0s: sent 0, failed 1: FAILED, attempts 1
	// +2s: sent 1, failed 0: SENT, attempts 1
}
