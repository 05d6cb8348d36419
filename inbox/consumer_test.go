package inbox_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/effect/effecttest"
	"outboxlab/inbox"
	"outboxlab/store"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type clock = effecttest.Clock

type fixture struct {
	t      *testing.T
	db     *store.DB
	broker *broker.Broker
	clock  *clock
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, db: store.New("billing"), clock: &clock{T: t0}}
	f.broker = broker.New(f.clock)
	if err := f.broker.Subscribe("billing"); err != nil {
		t.Fatal(err)
	}
	if err := billing.Install(f.db); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) consumer(gate effect.Gate) *inbox.Consumer {
	f.t.Helper()
	c, err := inbox.NewConsumer(inbox.DefaultConfig("billing", "billing"), inbox.Deps{DB: f.db, Broker: f.broker, Gate: gate, Clock: f.clock, Effect: billing.ApplyEffect})
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

// publish sends events with ids "<order>#<seq>".
func (f *fixture) publish(events ...domain.Event) {
	f.t.Helper()
	for _, e := range events {
		r, err := domain.Encode(e)
		if err != nil {
			f.t.Fatal(err)
		}
		err = f.broker.Publish(broker.Envelope{ID: id(e), Event: r})
		if err != nil && !errors.Is(err, broker.ErrTimeout) {
			f.t.Fatal(err)
		}
	}
}

func id(e domain.Event) string { return e.AggregateID() + "#" + string(rune('0'+e.Seq())) }

// run steps the consumer until the broker has nothing deliverable.
func (f *fixture) run(c *inbox.Consumer) {
	f.t.Helper()
	for range 100 {
		did, err := c.Step()
		if err != nil {
			f.t.Fatalf("step: %v", err)
		}
		if !did {
			return
		}
	}
	f.t.Fatal("the consumer did not settle in 100 steps")
}

// ledger renders the ledger as "kind order#seq amount" lines, in applied order.
func (f *fixture) ledger() []string {
	var out []string
	for _, e := range billing.Ledger(f.db) {
		out = append(out, string(e.Kind)+" "+e.OrderID+"#"+string(rune('0'+e.Sequence))+" "+e.Amount.String())
	}
	return out
}

func eur(s string) domain.Money { return domain.MustMoney(s, "EUR") }

func accepted(order, total string) domain.OrderAccepted {
	return domain.OrderAccepted{OrderID: order, Sequence: 1, Total: eur(total), AcceptedAt: t0}
}

func amended(order string, seq int, amount string) domain.OrderAmended {
	return domain.OrderAmended{OrderID: order, Sequence: seq, Amount: eur(amount), AmendedAt: t0}
}

func cancelled(order string, seq int) domain.OrderCancelled {
	return domain.OrderCancelled{OrderID: order, Sequence: seq, Reason: "changed mind", CancelledAt: t0}
}

func TestEveryEventHasItsOwnEffect(t *testing.T) {
	f := newFixture(t)
	f.publish(accepted("o-1", "10.00"), amended("o-1", 2, "2.50"), cancelled("o-1", 3))
	f.run(f.consumer(effect.Direct{}))
	want := []string{"invoice o-1#1 10.00 EUR", "line o-1#2 2.50 EUR", "credit o-1#3 -12.50 EUR"}
	if diff := cmp.Diff(want, f.ledger()); diff != "" {
		t.Fatalf("ledger (-want +got):\n%s", diff)
	}
}

func TestDuplicateDeliveryIsAppliedOnce(t *testing.T) {
	f := newFixture(t)
	f.broker.Duplicate(broker.Target{AggregateID: "o-1", Sequence: 1})
	f.publish(accepted("o-1", "10.00"))
	f.run(f.consumer(effect.Direct{}))
	if diff := cmp.Diff([]string{"invoice o-1#1 10.00 EUR"}, f.ledger()); diff != "" {
		t.Fatalf("ledger (-want +got):\n%s", diff)
	}
	if f.broker.Pending("billing") != 0 {
		t.Fatal("the duplicate was not acknowledged")
	}
}

func TestTimedOutRepublishIsAppliedOnce(t *testing.T) {
	f := newFixture(t)
	f.broker.TimeoutStored(broker.Target{AggregateID: "o-1", Sequence: 1})
	f.publish(accepted("o-1", "10.00")) // stored, but the relay saw a timeout...
	f.publish(accepted("o-1", "10.00")) // ...and sent it again
	f.run(f.consumer(effect.Direct{}))
	if diff := cmp.Diff([]string{"invoice o-1#1 10.00 EUR"}, f.ledger()); diff != "" {
		t.Fatalf("ledger (-want +got):\n%s", diff)
	}
}

func TestReorderedEventsAreAppliedInOrder(t *testing.T) {
	f := newFixture(t)
	f.broker.Reorder(broker.Target{AggregateID: "o-1", Sequence: 1})
	f.publish(accepted("o-1", "10.00"), cancelled("o-1", 2))
	f.run(f.consumer(effect.Direct{}))
	want := []string{"invoice o-1#1 10.00 EUR", "credit o-1#2 -10.00 EUR"}
	if diff := cmp.Diff(want, f.ledger()); diff != "" {
		t.Fatalf("ledger (-want +got):\n%s", diff)
	}
}

func TestGapParksUntilTheMissingEventArrives(t *testing.T) {
	f := newFixture(t)
	c := f.consumer(effect.Direct{})
	f.publish(accepted("o-1", "10.00"), amended("o-1", 3, "1.00"), amended("o-1", 4, "1.00"), accepted("o-2", "5.00"))
	f.run(c)
	if diff := cmp.Diff([]string{"invoice o-1#1 10.00 EUR", "invoice o-2#1 5.00 EUR"}, f.ledger()); diff != "" {
		t.Fatalf("ledger with #2 missing (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]inbox.BlockedAggregate{{OrderID: "o-1", Missing: 2, Waiting: 2}}, inbox.Blocked(f.db)); diff != "" {
		t.Fatalf("blocked (-want +got):\n%s", diff)
	}
	f.publish(amended("o-1", 2, "1.00"))
	f.run(c)
	want := []string{"invoice o-1#1 10.00 EUR", "invoice o-2#1 5.00 EUR", "line o-1#2 1.00 EUR", "line o-1#3 1.00 EUR", "line o-1#4 1.00 EUR"}
	if diff := cmp.Diff(want, f.ledger()); diff != "" {
		t.Fatalf("ledger after #2 arrived (-want +got):\n%s", diff)
	}
	if len(inbox.Blocked(f.db)) != 0 {
		t.Fatal("o-1 still blocked")
	}
}

func TestPoisonIsParkedAfterMaxAttemptsWhileOthersContinue(t *testing.T) {
	f := newFixture(t)
	c := f.consumer(effect.Direct{})
	f.broker.Poison(broker.Target{AggregateID: "o-1", Sequence: 1})
	f.publish(accepted("o-1", "10.00"), accepted("o-2", "5.00"), accepted("o-3", "7.00"))
	f.run(c)
	if diff := cmp.Diff([]string{"invoice o-2#1 5.00 EUR", "invoice o-3#1 7.00 EUR"}, f.ledger()); diff != "" {
		t.Fatalf("ledger (-want +got):\n%s", diff)
	}
	dead := inbox.DeadLetters(f.db)
	if len(dead) != 1 || dead[0].Envelope.ID != "o-1#1" || !strings.Contains(dead[0].Reason, "failed 3 times") {
		t.Fatalf("dead letters = %+v, want o-1#1 after 3 attempts", dead)
	}
	delivered := 0
	for _, a := range f.broker.History() {
		if a.Kind == broker.Delivered && a.MessageID == "o-1#1" {
			delivered++
		}
	}
	if delivered != 3 {
		t.Fatalf("the poison message was delivered %d times, want 3 (MaxAttempts)", delivered)
	}
	// The cause is fixed; the operator replays: the original is delivered.
	f.broker.FixPoison()
	if n, err := c.ReplayDeadLetters(); n != 1 || err != nil {
		t.Fatalf("replay = %d, %v", n, err)
	}
	f.run(c)
	if got := f.ledger(); len(got) != 3 || got[2] != "invoice o-1#1 10.00 EUR" {
		t.Fatalf("ledger after replay: %v", got)
	}
}

func TestUnknownVersionIsParkedNeverMisread(t *testing.T) {
	f := newFixture(t)
	r, _ := domain.Encode(accepted("o-1", "10.00"))
	r.Version = 9
	if err := f.broker.Publish(broker.Envelope{ID: "o-1#1", Event: r}); err != nil {
		t.Fatal(err)
	}
	f.run(f.consumer(effect.Direct{}))
	if len(f.ledger()) != 0 {
		t.Fatalf("a v9 event was applied: %v", f.ledger())
	}
	dead := inbox.DeadLetters(f.db)
	if len(dead) != 1 || !strings.Contains(dead[0].Reason, "unknown event version") {
		t.Fatalf("dead letters = %+v", dead)
	}
	if f.broker.Pending("billing") != 0 {
		t.Fatal("the parked message was not acknowledged")
	}
}

func TestCrashBeforeCommitLeavesNeitherEffectNorInbox(t *testing.T) {
	f := newFixture(t)
	f.publish(accepted("o-1", "10.00"))
	c := f.consumer(&effecttest.CrashGate{At: "consumer.before-commit"})
	if _, err := c.Step(); !errors.Is(err, effect.ErrCrashed) {
		t.Fatalf("err = %v, want ErrCrashed", err)
	}
	f.db.Crash("billing")
	f.broker.Disconnect("billing")
	if f.db.Len(billing.TableLedger) != 0 || f.db.Len(inbox.TableProcessed) != 0 {
		t.Fatalf("after a crash before commit: ledger %d, inbox %d; want neither", f.db.Len(billing.TableLedger), f.db.Len(inbox.TableProcessed))
	}
	f.run(f.consumer(effect.Direct{}))
	if diff := cmp.Diff([]string{"invoice o-1#1 10.00 EUR"}, f.ledger()); diff != "" {
		t.Fatalf("after restart (-want +got):\n%s", diff)
	}
}

func TestCrashAfterCommitIsRedeliveredWithoutASecondEffect(t *testing.T) {
	f := newFixture(t)
	f.publish(accepted("o-1", "10.00"))
	c := f.consumer(&effecttest.CrashGate{At: "consumer.after-commit"})
	if _, err := c.Step(); !errors.Is(err, effect.ErrCrashed) {
		t.Fatalf("err = %v, want ErrCrashed", err)
	}
	f.db.Crash("billing")
	f.broker.Disconnect("billing") // unacked: it comes again
	if f.db.Len(billing.TableLedger) != 1 || f.db.Len(inbox.TableProcessed) != 1 {
		t.Fatal("the effect and the inbox row were committed together")
	}
	f.run(f.consumer(effect.Direct{}))
	if diff := cmp.Diff([]string{"invoice o-1#1 10.00 EUR"}, f.ledger()); diff != "" {
		t.Fatalf("after redelivery (-want +got):\n%s", diff)
	}
	redelivered := false
	for _, a := range f.broker.History() {
		redelivered = redelivered || a.Kind == broker.Requeued
	}
	if !redelivered || f.broker.Pending("billing") != 0 {
		t.Fatal("the message was not redelivered and acknowledged")
	}
}

func TestConfigValidate(t *testing.T) {
	err := inbox.Config{}.Validate()
	for _, field := range []string{"Owner", "Subscription", "MaxAttempts = 0"} {
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("Validate does not name %s: %v", field, err)
		}
	}
}
