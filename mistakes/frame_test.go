package mistakes_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/effect/effecttest"
	"outboxlab/mistakes"
	"outboxlab/orders"
	"outboxlab/store"
	"outboxlab/variant"
)

type ids struct{ n int }

func (i *ids) NewID() string { i.n++; return fmt.Sprintf("e-%d", i.n) }

// TestTheRelayFrameWakesWhenTheReferenceWakes: after a step whose first
// send failed, with o-2's message released unsent and due at once, a relay
// mistake built on the shared frame (no-fencing) and the reference
// relay want to work again at the same time, the end of their pause. The frame keeps its pause itself; before NextWake asked
// it, the frame woke at once, in its pause, and polled a second later.
func TestTheRelayFrameWakesWhenTheReferenceWakes(t *testing.T) {
	wake := func(v variant.Variant) time.Time {
		clock := &effecttest.Clock{T: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		orderDB, billingDB := store.New("orders"), store.New("billing")
		br := broker.New(clock)
		if err := br.Subscribe(variant.Subscription); err != nil {
			t.Fatal(err)
		}
		if err := v.Install(orderDB, billingDB); err != nil {
			t.Fatal(err)
		}
		env := func(owner string) variant.Env {
			return variant.Env{Owner: owner, OrderDB: orderDB, BillingDB: billingDB, Broker: br, Gate: effect.Direct{},
				Clock: clock, DBClock: clock, IDs: &ids{}, Rand: rand.New(rand.NewPCG(1, 2))}
		}
		svc, err := v.NewService(env("service"))
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"o-1", "o-2"} {
			if err := svc.Handle(orders.Command{Kind: orders.Place, OrderID: id, Amount: domain.MustMoney("10.00", "EUR")}); err != nil {
				t.Fatal(err)
			}
		}
		relay, err := v.NewRelay(env("relay-1"))
		if err != nil {
			t.Fatal(err)
		}
		br.Outage(clock.T, clock.T.Add(time.Hour))
		if did, err := relay.Step(); !did || err != nil {
			t.Fatalf("%s: step did %v, %v; want a failed send", v.Name, did, err)
		}
		at, ok := relay.NextWake()
		if !ok {
			t.Fatalf("%s: no wake after a failed send", v.Name)
		}
		return at
	}
	ref, frame := wake(variant.Outbox()), wake(mistakes.NoFencing())
	if !frame.Equal(ref) {
		t.Errorf("after a failed send the frame wakes at %s, the reference at %s", frame.Format(time.TimeOnly), ref.Format(time.TimeOnly))
	}
}
