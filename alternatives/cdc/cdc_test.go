package cdc_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"outboxlab/alternatives/cdc"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/effect/effecttest"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/store"
)

type ids struct{ n int }

func (i *ids) NewID() string { i.n++; return "e-" + string(rune('0'+i.n)) }

type fixture struct {
	t      *testing.T
	db     *store.DB
	clock  *effecttest.Clock
	broker *broker.Broker
	svc    *cdc.Service
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{t: t, db: store.New("orders"), clock: &effecttest.Clock{T: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}
	f.broker = broker.New(f.clock)
	for _, err := range []error{orders.Install(f.db), outbox.Install(f.db), cdc.Install(f.db)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	f.svc = &cdc.Service{DB: f.db, Gate: effect.Direct{}, Clock: f.clock, IDs: &ids{}, Owner: "service"}
	return f
}

func (f *fixture) place(id string) {
	f.t.Helper()
	if err := f.svc.Handle(orders.Command{Kind: orders.Place, OrderID: id, Amount: domain.MustMoney("1.00", "EUR")}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) relay(gate effect.Gate) *cdc.Relay {
	cfg := outbox.DefaultConfig("relay-1")
	cfg.MaxAttempts = 2
	return &cdc.Relay{DB: f.db, Broker: f.broker, Gate: gate, Clock: f.clock, Owner: "relay-1", Config: cfg}
}

func (f *fixture) published() []string {
	var out []string
	for _, e := range f.broker.Log() {
		out = append(out, e.ID)
	}
	return out
}

// settle steps the relay until it has nothing to do, and reports the steps.
func (f *fixture) settle(r *cdc.Relay) int {
	f.t.Helper()
	n := 0
	for ; n < 20; n++ {
		did, err := r.Step()
		if err != nil {
			f.t.Fatal(err)
		}
		if !did {
			return n
		}
	}
	f.t.Fatal("the relay never settled: does it chase its own offset commits?")
	return n
}

func TestTheOutboxStaysEmptyAndTheLogCarriesTheMessages(t *testing.T) {
	f := newFixture(t)
	f.place("o-1")
	f.place("o-2")
	if n := f.db.Len(outbox.Table); n != 0 {
		t.Fatalf("outbox holds %d rows, want 0: the row is deleted in its own transaction", n)
	}
	r := f.relay(effect.Direct{})
	f.settle(r)
	if diff := cmp.Diff([]string{"e-1", "e-2"}, f.published()); diff != "" {
		t.Fatalf("published (-want +got):\n%s", diff)
	}
	if _, ok := r.NextWake(); ok {
		t.Fatal("NextWake says there is work after everything was published")
	}
	f.place("o-3")
	f.settle(r)
	if diff := cmp.Diff([]string{"e-1", "e-2", "e-3"}, f.published()); diff != "" {
		t.Fatalf("after one more order (-want +got):\n%s", diff)
	}
}

func TestACrashBeforeTheOffsetCommitSendsAgain(t *testing.T) {
	f := newFixture(t)
	f.place("o-1")
	crashing := f.relay(&effecttest.CrashGate{At: "relay.before-offset"})
	if _, err := crashing.Step(); !errors.Is(err, effect.ErrCrashed) {
		t.Fatalf("err = %v, want ErrCrashed", err)
	}
	f.db.Crash("relay-1")
	f.settle(f.relay(effect.Direct{}))
	if diff := cmp.Diff([]string{"e-1", "e-1"}, f.published()); diff != "" {
		t.Fatalf("published (-want +got): at least once, from the durable offset\n%s", diff)
	}
}

func TestARejectedMessageIsDeadLetteredAndReplayed(t *testing.T) {
	f := newFixture(t)
	f.broker.Reject(broker.Target{AggregateID: "o-1", Sequence: 1})
	f.place("o-1")
	f.place("o-2")
	r := f.relay(effect.Direct{})
	f.settle(r) // attempt 1 fails: backoff
	f.clock.Advance(time.Minute)
	f.settle(r) // attempt 2 fails: MaxAttempts 2, dead letter; o-2 goes on
	if diff := cmp.Diff([]string{"e-2"}, f.published()); diff != "" {
		t.Fatalf("published (-want +got):\n%s", diff)
	}
	if dead := cdc.DeadLetters(f.db); len(dead) != 1 || dead[0].AggregateID != "o-1" {
		t.Fatalf("dead letters = %v", dead)
	}
	f.broker.FixRejections()
	if n, err := r.ReplayDeadLetters(); n != 1 || err != nil {
		t.Fatalf("replay = %d, %v", n, err)
	}
	if diff := cmp.Diff([]string{"e-2", "e-1"}, f.published()); diff != "" || len(cdc.DeadLetters(f.db)) != 0 {
		t.Fatalf("after the replay (-want +got):\n%s", diff)
	}
}
