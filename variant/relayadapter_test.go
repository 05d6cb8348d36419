package variant_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/effect/effecttest"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/store"
	"outboxlab/variant"
)

type ids struct{ n int }

func (i *ids) NewID() string { i.n++; return fmt.Sprintf("e-%d", i.n) }

// TestTheAdapterWakesTheReferenceWhenItsStepWorks: the reference relay's
// adapter says when the relay's own Step will next do something, and the
// relay agrees (a step a millisecond earlier does nothing, one at the
// wake does something): after a failed send, at the end of the pause the
// relay's step reported (1 s, then 2 s); after a send the broker took, the
// relay's count of failed steps starts again (the next failure pauses 1 s,
// not 4 s, and the message's own backoff of 2 s decides). An adapter that
// ignored the reported pause would wake the relay in it; one that counted
// failures itself, without the reset, 2 s too late.
func TestTheAdapterWakesTheReferenceWhenItsStepWorks(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := &effecttest.Clock{T: t0}
	orderDB, billingDB := store.New("orders"), store.New("billing")
	br := broker.New(clock)
	v := variant.Outbox()
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
	place := func(id string) {
		if err := svc.Handle(orders.Command{Kind: orders.Place, OrderID: id, Amount: domain.MustMoney("10.00", "EUR")}); err != nil {
			t.Fatal(err)
		}
	}
	relay, err := v.NewRelay(env("relay-1"))
	if err != nil {
		t.Fatal(err)
	}
	step := func(want bool) {
		t.Helper()
		if did, err := relay.Step(); did != want || err != nil {
			t.Fatalf("at +%s: step did %v, %v; want %v", clock.T.Sub(t0), did, err, want)
		}
	}
	// wakes checks that the relay wants to wake after d, and that its Step
	// agrees, stepping at the wake.
	wakes := func(d time.Duration) {
		t.Helper()
		at, ok := relay.NextWake()
		if want := clock.T.Add(d); !ok || !at.Equal(want) {
			t.Fatalf("at +%s: NextWake = +%s, %v; want +%s", clock.T.Sub(t0), at.Sub(t0), ok, want.Sub(t0))
		}
		clock.T = at.Add(-time.Millisecond)
		step(false)
		clock.T = at
		step(true)
	}

	place("o-1")
	place("o-2")
	br.Outage(t0, t0.Add(2500*time.Millisecond))
	step(true)         // o-1 fails (due again at +2 s), o-2 released; pause 1 s
	wakes(time.Second) // o-2 fails (due at +3 s); pause 2 s, until +3 s
	wakes(2 * time.Second)
	if at, ok := relay.NextWake(); ok {
		t.Fatalf("after both were sent: NextWake = +%s, want never", at.Sub(t0))
	}
	// The adapter answers again without reading while nothing changed;
	// a commit of another process is a change: an order placed after the
	// relay said it had nothing is due at once.
	place("o-4")
	if at, ok := relay.NextWake(); !ok || !at.Equal(clock.T) {
		t.Fatalf("after o-4 was placed: NextWake = +%s, %v; want now, +%s", at.Sub(t0), ok, clock.T.Sub(t0))
	}
	step(true)
	if at, ok := relay.NextWake(); ok {
		t.Fatalf("after o-4 was sent: NextWake = +%s, want never", at.Sub(t0))
	}

	br.Outage(clock.T, clock.T.Add(time.Hour))
	place("o-3")
	step(true) // o-3 fails, due at +2 s; the first failed step since a send: pause 1 s
	wakes(2 * time.Second)
}

// TestARelayThatCannotBeBuiltIsNil: a reference relay that cannot be
// built (here: no database, no broker) is an error and no relay, not an
// adapter of nothing beside the error, which a caller that looked at the
// relay first would step into a nil pointer.
func TestARelayThatCannotBeBuiltIsNil(t *testing.T) {
	tuned, err := variant.WithRelayConfig(variant.Outbox(), func(c *outbox.Config) { c.BatchSize = 5 })
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []variant.Variant{variant.Outbox(), variant.DeleteOnSend(), tuned} {
		r, err := v.NewRelay(variant.Env{Owner: "relay-1"})
		if err == nil || r != nil {
			t.Errorf("%s without its dependencies: got relay %v (%T) and error %v, want no relay and an error", v.Name, r, r, err)
		}
	}
}

// TestTheAdapterOfNoRelayIsNil: the adapter of no relay is nil, not an
// adapter around a nil *outbox.Relay that steps into a nil pointer at its
// first call (as it was: AdaptRelay(nil) gave &RelayAdapter{}).
func TestTheAdapterOfNoRelayIsNil(t *testing.T) {
	if a := variant.AdaptRelay(nil); a != nil {
		t.Errorf("AdaptRelay(nil) = %#v, want nil", a)
	}
	if a := variant.AdaptRelay(&outbox.Relay{}); a == nil || a.Relay == nil {
		t.Errorf("AdaptRelay of a relay = %#v, want its adapter", a)
	}
}
