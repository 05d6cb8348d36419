package outbox_test

import (
	"fmt"
	"testing"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/effect/effecttest"
	"outboxlab/outbox"
	"outboxlab/store"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type clock = effecttest.Clock

// fixture is an order database with an outbox, a broker and a clock.
type fixture struct {
	t      testing.TB
	db     *store.DB
	broker *broker.Broker
	clock  *clock
	n      int
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{t: t, db: store.New("orders"), clock: &clock{T: t0}}
	f.broker = broker.New(f.clock)
	if err := f.broker.Subscribe("billing"); err != nil {
		t.Fatal(err)
	}
	if err := outbox.Install(f.db); err != nil {
		t.Fatal(err)
	}
	return f
}

// add commits one OrderAmended message for aggregate agg with sequence seq.
func (f *fixture) add(agg string, seq int) outbox.Message {
	f.t.Helper()
	f.n++
	tx := f.db.Begin("service")
	e := domain.OrderAmended{OrderID: agg, Sequence: seq, Amount: domain.MustMoney("1.00", "EUR"), AmendedAt: f.clock.Now()}
	m, err := outbox.Append(tx, fmt.Sprintf("e-%04d", f.n), e, f.clock.Now())
	if err != nil {
		f.t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		f.t.Fatal(err)
	}
	return m
}

func (f *fixture) relay(owner string, change func(*outbox.Config)) *outbox.Relay {
	return f.relayWithGate(owner, effect.Direct{}, change)
}

func (f *fixture) relayWithGate(owner string, gate effect.Gate, change func(*outbox.Config)) *outbox.Relay {
	f.t.Helper()
	cfg := outbox.DefaultConfig(owner)
	if change != nil {
		change(&cfg)
	}
	r, err := outbox.NewRelay(cfg, outbox.Deps{DB: f.db, Broker: f.broker, Gate: gate, Clock: f.clock})
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

func (f *fixture) step(r *outbox.Relay) outbox.StepReport {
	f.t.Helper()
	rep, err := r.Step()
	if err != nil {
		f.t.Fatalf("step: %v", err)
	}
	return rep
}

// message reads the committed message with the given key.
func (f *fixture) message(key string) outbox.Message {
	f.t.Helper()
	v, ok := f.db.Get(outbox.Table, key)
	if !ok {
		f.t.Fatalf("no message %s", key)
	}
	return v.(outbox.Message)
}

// statuses returns the status of every message, oldest first.
func (f *fixture) statuses() []outbox.Status {
	var out []outbox.Status
	for _, m := range outbox.All(f.db) {
		out = append(out, m.Status)
	}
	return out
}

// published returns the ids the broker stored, in order.
func (f *fixture) published() []string {
	var ids []string
	for _, e := range f.broker.Log() {
		ids = append(ids, e.ID)
	}
	return ids
}

func amended(agg string) domain.OrderAmended {
	return domain.OrderAmended{OrderID: agg, Sequence: 1, Amount: domain.MustMoney("1.00", "EUR"), AmendedAt: t0}
}
