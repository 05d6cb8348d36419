package broker_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect/effecttest"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type clock = effecttest.Clock

func env(id, agg string, seq int) broker.Envelope {
	return broker.Envelope{ID: id, Event: domain.Record{Type: "OrderAmended", Version: 1, AggregateID: agg, Sequence: seq, Payload: `{"orderId":"` + agg + `"}`}}
}

func newBroker(t *testing.T) (*broker.Broker, *clock) {
	t.Helper()
	c := &clock{T: t0}
	b := broker.New(c)
	if err := b.Subscribe("billing"); err != nil {
		t.Fatal(err)
	}
	return b, c
}

func publish(t *testing.T, b *broker.Broker, envs ...broker.Envelope) {
	t.Helper()
	for _, e := range envs {
		if err := b.Publish(e); err != nil {
			t.Fatalf("publish %s: %v", e.ID, err)
		}
	}
}

// drain receives and acks everything deliverable now, returning the ids in
// delivery order.
func drain(t *testing.T, b *broker.Broker) []string {
	t.Helper()
	var ids []string
	for {
		d, ok := b.Receive("billing")
		if !ok {
			return ids
		}
		ids = append(ids, d.Envelope.ID)
		if err := b.Ack("billing", d.Tag); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAtLeastOnceDelivery(t *testing.T) {
	b, _ := newBroker(t)
	publish(t, b, env("e-1", "o-1", 1), env("e-2", "o-2", 1))
	d1, _ := b.Receive("billing")
	d2, _ := b.Receive("billing")
	if err := b.Ack("billing", d2.Tag); err != nil {
		t.Fatal(err)
	}
	if err := b.Ack("billing", d2.Tag); !errors.Is(err, broker.ErrUnknownDelivery) {
		t.Fatalf("second ack: err = %v, want ErrUnknownDelivery", err)
	}
	b.Disconnect("billing") // the consumer crashed holding e-1
	again, ok := b.Receive("billing")
	if !ok || again.Envelope.ID != d1.Envelope.ID || !again.Redelivered {
		t.Fatalf("after disconnect got %+v, %v; want e-1 redelivered", again, ok)
	}
	if err := b.Ack("billing", d1.Tag); !errors.Is(err, broker.ErrUnknownDelivery) {
		t.Fatalf("ack of the old tag after reconnect: err = %v", err)
	}
	if err := b.Ack("billing", again.Tag); err != nil {
		t.Fatal(err)
	}
	if n := b.Pending("billing"); n != 0 {
		t.Fatalf("pending = %d, want 0", n)
	}
}

func TestFailNextPublishesStoresNothing(t *testing.T) {
	b, _ := newBroker(t)
	b.FailNextPublishes(2)
	for range 2 {
		if err := b.Publish(env("e-1", "o-1", 1)); !errors.Is(err, broker.ErrUnavailable) {
			t.Fatalf("err = %v, want ErrUnavailable", err)
		}
	}
	publish(t, b, env("e-1", "o-1", 1))
	if len(b.Log()) != 1 {
		t.Fatalf("log has %d messages, want 1", len(b.Log()))
	}
}

func TestOutageWindow(t *testing.T) {
	b, c := newBroker(t)
	publish(t, b, env("e-1", "o-1", 1))
	b.Outage(t0, t0.Add(10*time.Minute))
	if _, ok := b.Receive("billing"); ok {
		t.Fatal("delivered during the outage")
	}
	if err := b.Publish(env("e-2", "o-2", 1)); !errors.Is(err, broker.ErrUnavailable) {
		t.Fatalf("publish during outage: err = %v", err)
	}
	if at, ok := b.NextAvailable("billing"); !ok || !at.Equal(t0.Add(10*time.Minute)) {
		t.Fatalf("NextAvailable = %s, %v; want the end of the outage", at, ok)
	}
	c.T = t0.Add(10 * time.Minute)
	publish(t, b, env("e-2", "o-2", 1))
	if diff := cmp.Diff([]string{"e-1", "e-2"}, drain(t, b)); diff != "" {
		t.Fatalf("after the outage (-want +got):\n%s", diff)
	}
}

func TestPublishTimeoutBranchesLookTheSame(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault func(*broker.Broker, broker.Target)
		want  []string
	}{
		{"stored", (*broker.Broker).TimeoutStored, []string{"e-1", "e-1"}},
		{"dropped", (*broker.Broker).TimeoutDropped, []string{"e-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := newBroker(t)
			tc.fault(b, broker.Target{AggregateID: "o-1", Sequence: 1})
			err := b.Publish(env("e-1", "o-1", 1))
			if !errors.Is(err, broker.ErrTimeout) {
				t.Fatalf("err = %v, want ErrTimeout", err)
			}
			if want := "broker: publish e-1: broker publish timed out"; err.Error() != want {
				t.Fatalf("err = %q, want %q in both branches: a publisher must not be able to tell them apart", err, want)
			}
			publish(t, b, env("e-1", "o-1", 1)) // the publisher sends again; the fault was once
			if diff := cmp.Diff(tc.want, drain(t, b)); diff != "" {
				t.Fatalf("deliveries (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDuplicateReorderDelay(t *testing.T) {
	b, c := newBroker(t)
	b.Duplicate(broker.Target{AggregateID: "o-1", Sequence: 1})
	b.Reorder(broker.Target{AggregateID: "o-2", Sequence: 1})
	b.Delay(broker.Target{AggregateID: "o-3", Sequence: 1}, time.Minute)
	publish(t, b, env("a1", "o-1", 1), env("b1", "o-2", 1), env("c1", "o-3", 1), env("b2", "o-2", 2))
	if diff := cmp.Diff([]string{"a1", "a1", "b2", "b1"}, drain(t, b)); diff != "" {
		t.Fatalf("deliveries now (-want +got):\n%s", diff)
	}
	c.T = t0.Add(time.Minute)
	if diff := cmp.Diff([]string{"c1"}, drain(t, b)); diff != "" {
		t.Fatalf("deliveries after the delay (-want +got):\n%s", diff)
	}
}

func TestHealReleasesAMessageHeldForAReorderThatNeverCame(t *testing.T) {
	b, _ := newBroker(t)
	b.Reorder(broker.Target{AggregateID: "o-1", Sequence: 1})
	publish(t, b, env("a1", "o-1", 1))
	if ids := drain(t, b); len(ids) != 0 || b.Pending("billing") != 1 {
		t.Fatalf("delivered %v while held; pending %d", ids, b.Pending("billing"))
	}
	b.Heal()
	if diff := cmp.Diff([]string{"a1"}, drain(t, b)); diff != "" {
		t.Fatalf("after heal (-want +got):\n%s", diff)
	}
}

func TestRejectionAndPoisonOutliveHeal(t *testing.T) {
	b, _ := newBroker(t)
	target := broker.Target{AggregateID: "o-1", Sequence: 1}
	b.Reject(target)
	b.Heal()
	if err := b.Publish(env("e-1", "o-1", 1)); !errors.Is(err, broker.ErrRejected) {
		t.Fatalf("after heal: err = %v, want ErrRejected", err)
	}
	b.FixRejections()
	b.Poison(target)
	publish(t, b, env("e-1", "o-1", 1))
	b.Heal()
	d, _ := b.Receive("billing")
	original := b.Log()[0].Event.Payload
	if d.Envelope.Event.Payload == original {
		t.Fatal("a poisoned delivery carried the original payload")
	}
	if err := b.Nack("billing", d.Tag); err != nil {
		t.Fatal(err)
	}
	b.FixPoison()
	d, _ = b.Receive("billing")
	if d.Envelope.Event.Payload != original || !d.Redelivered {
		t.Fatalf("after FixPoison: %+v", d)
	}
}

func TestNackGoesToTheBackAndRedeliverReplaysTheLog(t *testing.T) {
	b, _ := newBroker(t)
	publish(t, b, env("e-1", "o-1", 1), env("e-2", "o-2", 1))
	d, _ := b.Receive("billing")
	if err := b.Nack("billing", d.Tag); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"e-2", "e-1"}, drain(t, b)); diff != "" {
		t.Fatalf("after nack (-want +got):\n%s", diff)
	}
	if n, m := b.Nacks("billing", "e-1"), b.Nacks("billing", "e-2"); n != 1 || m != 0 {
		t.Fatalf("nacks of e-1, e-2: %d, %d, want 1, 0", n, m)
	}
	if err := b.Redeliver("billing", "e-1"); err != nil {
		t.Fatal(err)
	}
	if err := b.Redeliver("billing", "e-9"); !errors.Is(err, broker.ErrUnknownMessage) {
		t.Fatalf("redeliver unknown: err = %v", err)
	}
	if diff := cmp.Diff([]string{"e-1"}, drain(t, b)); diff != "" {
		t.Fatalf("after redeliver (-want +got):\n%s", diff)
	}
}

// TestAnUnknownSubscriptionIsAnError: a client that names a subscription
// the broker does not have gets an error naming it and the ones there
// are, as from a real broker, not a panic: the fake broker panicked on
// Redeliver and Holds (which a listen-to-yourself service asks before it
// decides), and the verdict blamed the learner's code for it.
func TestAnUnknownSubscriptionIsAnError(t *testing.T) {
	b, _ := newBroker(t)
	publish(t, b, env("e-1", "o-1", 1))
	_, holdsErr := b.Holds("billing-dlq", "o-1")
	for name, err := range map[string]error{
		"holds":     holdsErr,
		"redeliver": b.Redeliver("billing-dlq", "e-1"),
		"ack":       b.Ack("billing-dlq", 1),
		"nack":      b.Nack("billing-dlq", 1),
	} {
		if !errors.Is(err, broker.ErrUnknownSubscription) || !strings.Contains(err.Error(), `"billing-dlq" (the broker has [billing])`) {
			t.Errorf("%s: err = %v, want ErrUnknownSubscription naming billing-dlq and billing", name, err)
		}
	}
	if _, ok := b.Receive("billing-dlq"); ok {
		t.Error("a receive from billing-dlq got a delivery")
	}
	if got := drain(t, b); len(got) != 1 {
		t.Errorf("billing got %v, want e-1 once: a refused redelivery queued nothing", got)
	}
}

func TestHistoryRecordsEverything(t *testing.T) {
	b, _ := newBroker(t)
	b.FailNextPublishes(1)
	_ = b.Publish(env("e-1", "o-1", 1))
	publish(t, b, env("e-1", "o-1", 1))
	drain(t, b)
	var kinds []broker.ActionKind
	for _, a := range b.History() {
		kinds = append(kinds, a.Kind)
	}
	want := []broker.ActionKind{broker.PublishFailed, broker.Published, broker.Delivered, broker.Acked}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Fatalf("history (-want +got):\n%s", diff)
	}
}

func TestWrongCurrencyChangesOnlyAnAmendmentsCurrency(t *testing.T) {
	b, _ := newBroker(t)
	amend := env("e-1", "o-1", 2)
	amend.Event.Payload = `{"orderId":"o-1","sequence":2,"amount":{"amount":"2.50","currency":"EUR"}}`
	accept := env("e-2", "o-2", 1)
	accept.Event.Type, accept.Event.Payload = "OrderAccepted", `{"orderId":"o-2","total":{"amount":"9.00","currency":"EUR"}}`
	b.WrongCurrency(broker.Target{AggregateID: "o-1", Sequence: 2})
	b.WrongCurrency(broker.Target{AggregateID: "o-2", Sequence: 1})
	b.Heal() // a wrong currency is not transient
	publish(t, b, amend, accept)
	var got []string
	for _, d := range []broker.Delivery{receive(t, b), receive(t, b)} {
		got = append(got, d.Envelope.Event.Payload)
		if err := b.Nack("billing", d.Tag); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{`{"orderId":"o-1","sequence":2,"amount":{"amount":"2.50","currency":"USD"}}`, accept.Event.Payload}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("payloads delivered (-want +got):\n%s", diff)
	}
	b.FixPoison()
	if d := receive(t, b); d.Envelope.Event.Payload != amend.Event.Payload {
		t.Fatalf("after FixPoison: %s", d.Envelope.Event.Payload)
	}
}

func receive(t *testing.T, b *broker.Broker) broker.Delivery {
	t.Helper()
	d, ok := b.Receive("billing")
	if !ok {
		t.Fatal("nothing to receive")
	}
	return d
}

func TestCorruptOnceCorruptsTheNextDeliveryOnly(t *testing.T) {
	b, _ := newBroker(t)
	b.CorruptOnce(broker.Target{AggregateID: "o-1", Sequence: 1})
	publish(t, b, env("e-1", "o-1", 1))
	original := b.Log()[0].Event.Payload
	d := receive(t, b)
	if d.Envelope.Event.Payload == original {
		t.Fatal("the first delivery carried the original payload")
	}
	if err := b.Nack("billing", d.Tag); err != nil {
		t.Fatal(err)
	}
	if d := receive(t, b); d.Envelope.Event.Payload != original {
		t.Fatalf("the second delivery: %q, want the original %q", d.Envelope.Event.Payload, original)
	}
}

// TestATwoPhaseCommitHandsOverOnlyWhatIsCommitted: a prepared message
// reaches nobody until it is committed; an aborted one never does; a
// prepare while the broker is down stores nothing; InDoubt lists the
// prepared messages by the time they were prepared.
func TestATwoPhaseCommitHandsOverOnlyWhatIsCommitted(t *testing.T) {
	clock := &effecttest.Clock{T: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	b := broker.New(clock)
	if err := b.Subscribe("billing"); err != nil {
		t.Fatal(err)
	}
	a, c := broker.Envelope{ID: "e-a", Event: domain.Record{AggregateID: "o-1", Sequence: 1}}, broker.Envelope{ID: "e-c", Event: domain.Record{AggregateID: "o-2", Sequence: 1}}
	if err := b.Prepare(a); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	if err := b.Prepare(c); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Receive("billing"); ok || len(b.Log()) != 0 {
		t.Fatal("a prepared message was handed over or logged")
	}
	if doubt := b.InDoubt(clock.T); len(doubt) != 1 || doubt[0].ID != "e-a" {
		t.Fatalf("in doubt before now: %v, want e-a alone", doubt)
	}
	if err := b.CommitPrepared("e-a"); err != nil {
		t.Fatal(err)
	}
	if err := b.AbortPrepared("e-c"); err != nil {
		t.Fatal(err)
	}
	d, ok := b.Receive("billing")
	if !ok || d.Envelope.ID != "e-a" {
		t.Fatalf("got %v, %v, want e-a", d, ok)
	}
	if _, ok := b.Receive("billing"); ok {
		t.Fatal("the aborted message was handed over")
	}
	if err := b.CommitPrepared("e-c"); !errors.Is(err, broker.ErrUnknownMessage) {
		t.Fatalf("committing an aborted message: %v, want ErrUnknownMessage", err)
	}
	b.Outage(clock.T, clock.T.Add(time.Minute))
	if err := b.Prepare(broker.Envelope{ID: "e-d"}); !errors.Is(err, broker.ErrUnavailable) || len(b.InDoubt(clock.T.Add(time.Hour))) != 0 {
		t.Fatalf("a prepare during an outage: %v, in doubt %v", err, b.InDoubt(clock.T.Add(time.Hour)))
	}
}
