package outboxlab_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/effect/effecttest"
	"outboxlab/orders"
	"outboxlab/store"
	"outboxlab/variant"
)

// counterIDs draws message ids e-1, e-2, ...
type counterIDs struct{ n int }

func (c *counterIDs) NewID() string { c.n++; return "e-" + strconv.Itoa(c.n) }

// BenchmarkPipeline moves messages from place-order to invoice through the
// reference components wired as in production (effect.Direct, no
// simulator, no crash points, no invariant check), 100 messages per fresh
// pair of databases as in sim's BenchmarkLifecycle. The difference between
// the two is what the simulator itself costs; this one is what the
// components cost.
func BenchmarkPipeline(b *testing.B) {
	const perRun = 100
	amount := domain.MustMoney("10.00", "EUR")
	ids := make([]string, perRun)
	for i := range ids {
		ids[i] = fmt.Sprintf("o-%d", i+1)
	}
	b.ReportAllocs()
	for b.Loop() {
		clock := &effecttest.Clock{T: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		orderDB, billingDB := store.New("orders"), store.New("billing")
		br := broker.New(clock)
		br.KeepHistory(false)
		if err := br.Subscribe(variant.Subscription); err != nil {
			b.Fatal(err)
		}
		if err := variant.InstallAll(orderDB, billingDB); err != nil {
			b.Fatal(err)
		}
		env := func(owner string) variant.Env {
			return variant.Env{Owner: owner, OrderDB: orderDB, BillingDB: billingDB, Broker: br,
				Gate: effect.Direct{}, Clock: clock, DBClock: clock, IDs: &counterIDs{}, Rand: rand.New(rand.NewPCG(1, 2))}
		}
		svc, err1 := variant.NewOutboxService(env("service"))
		relay, err2 := variant.NewOutboxRelay(env("relay-1"))
		consumer, err3 := variant.NewBillingConsumer(env("billing"))
		if err1 != nil || err2 != nil || err3 != nil {
			b.Fatal(err1, err2, err3)
		}
		for _, id := range ids {
			clock.Advance(100 * time.Millisecond)
			if err := svc.Handle(orders.Command{Kind: orders.Place, OrderID: id, Amount: amount}); err != nil {
				b.Fatal(err)
			}
			if did, err := relay.Step(); !did || err != nil {
				b.Fatal(did, err)
			}
			if did, err := consumer.Step(); !did || err != nil {
				b.Fatal(did, err)
			}
		}
		if n := len(billing.Ledger(billingDB)); n != perRun {
			b.Fatalf("%d invoices, want %d", n, perRun)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perRun), "ns/msg")
}
