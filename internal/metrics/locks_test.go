package metrics_test

import (
	"testing"
	"time"

	"outboxlab/internal/metrics"
	"outboxlab/outbox"
	"outboxlab/sim"
	"outboxlab/store"
)

// TestTheLocksOfALongTransactionAreMeasured: a transaction that locks
// rows with SKIP LOCKED and commits later shows in the series as the rows
// it held and for how long (Commit.LockedFor: from the first lock to the
// commit); a commit that wrote rows without locking them shows nothing.
func TestTheLocksOfALongTransactionAreMeasured(t *testing.T) {
	now := t0
	db := store.New("orders")
	db.KeepLog()
	db.SetClock(func() time.Time { return now })
	if err := db.CreateTable(outbox.Table); err != nil {
		t.Fatal(err)
	}
	seed := db.Begin("service")
	for _, k := range []string{"a", "b", "c"} {
		if err := seed.Insert(outbox.Table, k, outbox.Message{ID: k, Status: outbox.Pending, CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
	}
	if err := seed.Commit(); err != nil {
		t.Fatal(err)
	}
	relay := db.Begin("relay-1")
	now = now.Add(100 * time.Millisecond)
	for _, k := range []string{"a", "b"} {
		if !relay.LockSkip(outbox.Table, k) {
			t.Fatalf("row %s not locked", k)
		}
		relay.Put(outbox.Table, k, outbox.Message{ID: k, Status: outbox.Sent, CreatedAt: t0})
	}
	now = now.Add(1500 * time.Millisecond)
	if err := relay.Commit(); err != nil {
		t.Fatal(err)
	}
	samples := metrics.Series(db.Log(0), nil, t0, 2*time.Second, time.Second, nil)
	last := samples[len(samples)-1]
	if last.Locked != 2 || last.LockedFor != 1500*time.Millisecond {
		t.Errorf("the last sample shows %d rows locked for %s, want 2 for 1.5s (from the first lock to the commit)", last.Locked, last.LockedFor)
	}
	if samples[0].Locked != 0 || samples[1].Locked != 0 {
		t.Errorf("the seed's commit locked nothing, the samples before the relay's commit show %d and %d", samples[0].Locked, samples[1].Locked)
	}
}

// TestChapter003sRelayHoldsItsBatchLockedAndTheLeaseDoesNot: the story
// large-batch, measured: chapter 003's relay holds 90 rows locked for
// over a second; the reference's lease holds none.
func TestChapter003sRelayHoldsItsBatchLockedAndTheLeaseDoesNot(t *testing.T) {
	for _, c := range []struct {
		variant string
		locked  int
		atLeast time.Duration
	}{{"skip-locked-tx", 90, time.Second}, {"outbox", 0, 0}} {
		res := playStory(t, "large-batch", c.variant)
		locked, longest := 0, time.Duration(0)
		for _, s := range metrics.Series(res.OrderLog, res.BillingLog, sim.Epoch, res.WorkEnded, time.Second, nil) {
			locked, longest = max(locked, s.Locked), max(longest, s.LockedFor)
		}
		if locked != c.locked || longest < c.atLeast {
			t.Errorf("%s: %d rows locked for %s, want %d for at least %s", c.variant, locked, longest, c.locked, c.atLeast)
		}
	}
}
