package outbox_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"outboxlab/effect"
	"outboxlab/effect/effecttest"
	"outboxlab/outbox"
)

func TestTwoRelaysNeverHoldTheSameMessage(t *testing.T) {
	f := newFixture(t)
	for i := range 5 {
		f.add(string(rune('a'+i)), 1)
	}
	a := f.relay("relay-a", func(c *outbox.Config) { c.BatchSize = 3 })
	b := f.relay("relay-b", func(c *outbox.Config) { c.BatchSize = 3 })
	batchA, err := a.ClaimDue()
	if err != nil {
		t.Fatal(err)
	}
	batchB, err := b.ClaimDue()
	if err != nil {
		t.Fatal(err)
	}
	if len(batchA) != 3 || len(batchB) != 2 {
		t.Fatalf("claimed %d and %d, want 3 and 2", len(batchA), len(batchB))
	}
	held := map[string]string{}
	for _, m := range append(batchA, batchB...) {
		if other, ok := held[m.Key]; ok {
			t.Fatalf("message %s held by %s and %s", m.ID, other, m.LeaseOwner)
		}
		held[m.Key] = m.LeaseOwner
	}
	if more, _ := b.ClaimDue(); len(more) != 0 {
		t.Fatalf("relay-b claimed %d messages under live leases", len(more))
	}
}

func TestExpiredLeaseIsTakenOverAndFencesTheOldHolder(t *testing.T) {
	f := newFixture(t)
	m := f.add("o-1", 1)
	a := f.relay("relay-a", nil)
	b := f.relay("relay-b", nil)
	if batch, _ := a.ClaimDue(); len(batch) != 1 {
		t.Fatal("relay-a claimed nothing")
	}
	f.clock.Advance(29 * time.Second)
	if batch, _ := b.ClaimDue(); len(batch) != 0 {
		t.Fatal("relay-b took over a lease 1 s before it expired")
	}
	f.clock.Advance(time.Second) // relay-a stalled past its 30 s lease
	if batch, _ := b.ClaimDue(); len(batch) != 1 || batch[0].LeaseOwner != "relay-b" {
		t.Fatalf("relay-b did not take over the expired lease: %v", batch)
	}
	// relay-a wakes up and finishes its step: it published, but may not mark.
	rep := f.step(a)
	if rep.Claimed != 0 {
		t.Fatalf("relay-a claimed %d", rep.Claimed)
	}
	cur := f.message(m.Key)
	if err := cur.MarkSent("relay-a", f.clock.Now()); !errors.Is(err, outbox.ErrLeaseLost) {
		t.Fatalf("relay-a marking after losing its lease: err = %v, want ErrLeaseLost", err)
	}
}

func TestStaleRelayCannotMarkAfterItsLeaseExpired(t *testing.T) {
	f := newFixture(t)
	m := f.add("o-1", 1)
	// relay-a's publish takes longer than its lease: the broker acks, but by
	// then relay-b owns the message.
	var b *outbox.Relay
	slow := gateFunc(func(bd effect.Boundary, do func() error) error {
		err := do()
		if bd == outbox.BoundarySend && b != nil {
			f.clock.Advance(31 * time.Second)
			if batch, _ := b.ClaimDue(); len(batch) != 1 {
				t.Fatal("relay-b could not take over")
			}
			b = nil
		}
		return err
	})
	a := f.relayWithGate("relay-a", slow, nil)
	b = f.relay("relay-b", nil)
	rep := f.step(a)
	if rep.Sent != 0 || rep.LeaseLost != 1 {
		t.Fatalf("relay-a: %+v, want the mark refused (LeaseLost 1)", rep)
	}
	if got := f.message(m.Key); got.Status != outbox.InFlight || got.LeaseOwner != "relay-b" {
		t.Fatalf("message = %s held by %s, want IN_FLIGHT held by relay-b", got.Status, got.LeaseOwner)
	}
}

type gateFunc func(effect.Boundary, func() error) error

func (g gateFunc) Cross(b effect.Boundary, do func() error) error { return g(b, do) }

func TestLaterEventsOfAnAggregateWaitForTheEarlierOne(t *testing.T) {
	f := newFixture(t)
	first := f.add("o-1", 1)
	f.add("o-1", 2)
	other := f.add("o-2", 1)
	f.broker.FailNextPublishes(1) // o-1#1 fails
	r := f.relay("relay-1", nil)
	rep := f.step(r)
	if rep.Failed != 1 || rep.Released != 2 {
		t.Fatalf("step 1: %+v, want 1 failed and the rest of the batch released", rep)
	}
	f.clock.Advance(time.Second) // the relay's own pause after a failed step
	rep = f.step(r)              // o-1#1 waits out its 2 s backoff: o-1#2 must wait too
	if rep.Sent != 1 || !cmp.Equal(f.published(), []string{other.ID}) {
		t.Fatalf("step 2: %+v, published %v; want only %s (o-2#1)", rep, f.published(), other.ID)
	}
	met := r.Metrics()
	if len(met.Blocked) != 1 || met.Blocked[0].AggregateID != "o-1" || met.Blocked[0].Waiting != 1 || met.Blocked[0].Head.Key != first.Key {
		t.Fatalf("blocked = %+v, want o-1 blocked by its first message with 1 waiting", met.Blocked)
	}
	f.clock.Advance(time.Second)
	f.step(r)
	want := []string{other.ID, "e-0001", "e-0002"}
	if diff := cmp.Diff(want, f.published()); diff != "" {
		t.Fatalf("published (-want +got):\n%s", diff)
	}
}

func TestRecoveryAfterCrashAtClaim(t *testing.T) {
	f := newFixture(t)
	m := f.add("o-1", 1)
	gate := &effecttest.CrashGate{At: "relay.after-claim"}
	r := f.relayWithGate("relay-1", gate, nil)
	if _, err := r.Step(); !errors.Is(err, effect.ErrCrashed) {
		t.Fatalf("step: err = %v, want ErrCrashed", err)
	}
	f.db.Crash("relay-1")
	if got := f.message(m.Key); got.Status != outbox.InFlight {
		t.Fatalf("after the crash the claim is committed: %s, want IN_FLIGHT", got.Status)
	}
	restarted := f.relay("relay-1", nil)
	if n, err := restarted.Recover(); n != 1 || err != nil {
		t.Fatalf("Recover = %d, %v; want the one claim released", n, err)
	}
	f.step(restarted)
	if got := f.message(m.Key); got.Status != outbox.Sent || len(f.published()) != 1 {
		t.Fatalf("after recovery: %s, published %v", got.Status, f.published())
	}
}

func TestRecoveryAfterCrashAfterSendSendsAgain(t *testing.T) {
	f := newFixture(t)
	m := f.add("o-1", 1)
	r := f.relayWithGate("relay-1", &effecttest.CrashGate{At: "relay.after-send"}, nil)
	if _, err := r.Step(); !errors.Is(err, effect.ErrCrashed) {
		t.Fatalf("step: err = %v, want ErrCrashed", err)
	}
	f.db.Crash("relay-1")
	restarted := f.relay("relay-1", nil)
	if _, err := restarted.Recover(); err != nil {
		t.Fatal(err)
	}
	f.step(restarted)
	// At-least-once: the broker has the message twice, with one id, and the
	// consumer's inbox deduplicates it.
	if diff := cmp.Diff([]string{m.ID, m.ID}, f.published()); diff != "" {
		t.Fatalf("published (-want +got):\n%s", diff)
	}
	if got := f.message(m.Key); got.Status != outbox.Sent {
		t.Fatalf("status %s, want SENT", got.Status)
	}
}

func TestAnotherRelayTakesOverACrashedRelaysClaimAfterTheLease(t *testing.T) {
	f := newFixture(t)
	m := f.add("o-1", 1)
	crashed := f.relayWithGate("relay-1", &effecttest.CrashGate{At: "relay.after-claim"}, nil)
	if _, err := crashed.Step(); !errors.Is(err, effect.ErrCrashed) {
		t.Fatal(err)
	}
	f.db.Crash("relay-1")
	other := f.relay("relay-2", nil)
	if rep := f.step(other); rep.Claimed != 0 {
		t.Fatalf("relay-2 claimed under relay-1's live lease")
	}
	f.clock.Advance(30*time.Second - time.Millisecond)
	if rep := f.step(other); rep.Claimed != 0 {
		t.Fatalf("relay-2 claimed a millisecond before relay-1's lease expired")
	}
	f.clock.Advance(time.Millisecond)
	if rep := f.step(other); rep.Sent != 1 {
		t.Fatalf("relay-2 after the lease: %+v", rep)
	}
	if got := f.message(m.Key); got.Status != outbox.Sent {
		t.Fatal(got.Status)
	}
}

func TestRetentionDeletesOnlyOldSentMessages(t *testing.T) {
	f := newFixture(t)
	// One message in every status, created and (for SENT) sent 8 days ago,
	// and one SENT message sent a day ago.
	put := func(agg string, s outbox.Status, sentAt time.Time) outbox.Message {
		m := f.add(agg, 1)
		m.Status, m.SentAt = s, sentAt
		tx := f.db.Begin("test")
		tx.Put(outbox.Table, m.Key, m)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return m
	}
	old := map[outbox.Status]outbox.Message{}
	for i, s := range []outbox.Status{outbox.Sent, outbox.Pending, outbox.InFlight, outbox.Failed, outbox.DeadLetter} {
		old[s] = put(string(rune('a'+i)), s, t0)
	}
	recent := put("recent", outbox.Sent, t0.Add(7*24*time.Hour))
	f.clock.Advance(8 * 24 * time.Hour)

	n, err := f.relay("relay-1", nil).Cleanup()
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("Cleanup deleted %d, want 1 (the SENT message older than 7 days)", n)
	}
	if _, ok := f.db.Get(outbox.Table, old[outbox.Sent].Key); ok {
		t.Error("the SENT message older than 7 days is still there")
	}
	for _, s := range []outbox.Status{outbox.Pending, outbox.InFlight, outbox.Failed, outbox.DeadLetter} {
		if _, ok := f.db.Get(outbox.Table, old[s].Key); !ok {
			t.Errorf("Cleanup deleted an old %s message", s)
		}
	}
	if _, ok := f.db.Get(outbox.Table, recent.Key); !ok {
		t.Error("Cleanup deleted a message sent one day ago")
	}
}

func TestReplayDeadLettersByFilter(t *testing.T) {
	f := newFixture(t)
	r := f.relay("relay-1", func(c *outbox.Config) { c.MaxAttempts = 1 })
	f.broker.FailNextPublishes(3)
	a, b, c := f.add("o-1", 1), f.add("o-2", 1), f.add("o-3", 1)
	for range 3 {
		f.step(r)
		f.clock.Advance(time.Minute) // past the relay's pause
	}
	if diff := cmp.Diff([]outbox.Status{outbox.DeadLetter, outbox.DeadLetter, outbox.DeadLetter}, f.statuses()); diff != "" {
		t.Fatalf("setup (-want +got):\n%s", diff)
	}
	if n, err := r.ReplayDeadLetters(outbox.Filter{AggregateID: "o-2"}); n != 1 || err != nil {
		t.Fatalf("replay o-2 = %d, %v", n, err)
	}
	if got := f.message(b.Key); got.Status != outbox.Pending || got.Attempts != 0 || got.Replays != 1 {
		t.Fatalf("replayed message: %+v", got)
	}
	if n, _ := r.ReplayDeadLetters(outbox.Filter{EventType: "OrderShipped"}); n != 0 {
		t.Fatalf("replay of an unknown event type replayed %d", n)
	}
	if n, _ := r.ReplayDeadLetters(outbox.Filter{}); n != 2 {
		t.Fatalf("replay all = %d, want the other 2", n)
	}
	for range 3 {
		f.step(r)
	}
	for _, m := range []outbox.Message{a, b, c} {
		if got := f.message(m.Key); got.Status != outbox.Sent {
			t.Errorf("%s after replay: %s", m.Event.AggregateID, got.Status)
		}
	}
}

func TestMetricsDuringABrokerOutage(t *testing.T) {
	f := newFixture(t)
	r := f.relay("relay-1", nil)
	f.broker.Outage(t0, t0.Add(10*time.Minute))
	for i := range 4 {
		f.add(string(rune('a'+i)), 1)
		f.step(r)
		f.clock.Advance(time.Minute)
	}
	// t0+4m: each poll failed one message and released the rest.
	m := r.Metrics()
	if m.ByStatus[outbox.Sent] != 0 || m.ByStatus[outbox.Failed]+m.ByStatus[outbox.Pending] != 4 {
		t.Fatalf("by status %v, want 4 unsent", m.ByStatus)
	}
	if m.OldestUnsentAge != 4*time.Minute {
		t.Fatalf("oldest unsent age %s, want 4m", m.OldestUnsentAge)
	}
	for f.clock.Now().Before(t0.Add(20 * time.Minute)) {
		f.step(r)
		f.clock.Advance(10 * time.Second)
	}
	m = r.Metrics()
	if m.ByStatus[outbox.Sent] != 4 || m.OldestUnsentAge != 0 || len(m.Blocked) != 0 {
		t.Fatalf("after the outage: %+v, want all 4 SENT", m)
	}
}

func TestMetricsSeparateBackoffFromClaimable(t *testing.T) {
	f := newFixture(t)
	r := f.relay("relay-1", nil)
	f.broker.FailNextPublishes(1)
	f.add("a", 1)
	f.step(r) // a FAILED, retry in 2 s
	f.clock.Advance(time.Second)
	f.add("b", 1) // PENDING, claimable now
	f.clock.Advance(500 * time.Millisecond)
	m := r.Metrics()
	if m.OldestUnsentAge != 1500*time.Millisecond || m.OldestClaimableAge != 500*time.Millisecond {
		t.Fatalf("oldest unsent %s, oldest claimable %s; want 1.5s and 0.5s", m.OldestUnsentAge, m.OldestClaimableAge)
	}
	want := []outbox.AttemptCount{{Attempts: 0, Messages: 1}, {Attempts: 1, Messages: 1}}
	if diff := cmp.Diff(want, m.Attempts); diff != "" {
		t.Fatalf("attempts (-want +got):\n%s", diff)
	}
}

func TestBackoffIsCappedExponential(t *testing.T) {
	c := outbox.DefaultConfig("relay-1")
	var got []time.Duration
	for n := 1; n <= 10; n++ {
		got = append(got, c.Backoff(n, 0))
	}
	s := time.Second
	want := []time.Duration{2 * s, 4 * s, 8 * s, 16 * s, 32 * s, 64 * s, 128 * s, 256 * s, 300 * s, 300 * s}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("backoff (-want +got):\n%s", diff)
	}
	c.Jitter = 0.5
	if d := c.Backoff(3, 0.5); d != 6*s {
		t.Fatalf("backoff with jitter 0.5 drawn 0.5: %s, want 6s", d)
	}
	if d := c.Backoff(100, 0); d != 300*s {
		t.Fatalf("backoff after 100 attempts: %s", d)
	}
}

func TestConfigValidateNamesEveryBadField(t *testing.T) {
	c := outbox.Config{Jitter: 1.5}
	err := c.Validate()
	for _, field := range []string{"Owner", "BatchSize", "Lease", "MaxAttempts", "BackoffBase", "Jitter", "Retention", "BusyPoll"} {
		if err == nil || !strings.Contains(err.Error(), field+" =") {
			t.Errorf("Validate does not name %s: %v", field, err)
		}
	}
	if !errors.Is(err, outbox.ErrConfig) {
		t.Errorf("err = %v, want ErrConfig", err)
	}
	if err := outbox.DefaultConfig("relay-1").Validate(); err != nil {
		t.Errorf("default config invalid: %v", err)
	}
	if _, err := outbox.NewRelay(outbox.Config{}, outbox.Deps{}); err == nil {
		t.Error("NewRelay accepted a zero config")
	}
}

func TestTheRelayPausesAfterFailedSteps(t *testing.T) {
	f := newFixture(t)
	for i := range 5 {
		f.add(string(rune('a'+i)), 1)
	}
	f.broker.Outage(t0, t0.Add(time.Hour))
	r := f.relay("relay-1", nil)
	var failedAt []time.Duration
	for f.clock.Now().Before(t0.Add(30 * time.Second)) {
		if rep := f.step(r); rep.Failed > 0 {
			failedAt = append(failedAt, f.clock.Now().Sub(t0))
		}
		f.clock.Advance(500 * time.Millisecond)
	}
	// Pauses of 1 s, 2 s, 4 s, 8 s, then 10 s (PauseCap): not a failure
	// every poll.
	s := time.Second
	want := []time.Duration{0, 1 * s, 3 * s, 7 * s, 15 * s, 25 * s}
	if diff := cmp.Diff(want, failedAt); diff != "" {
		t.Fatalf("failed sends at (-want +got):\n%s", diff)
	}
}
