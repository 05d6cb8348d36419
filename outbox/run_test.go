package outbox_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/outbox"
)

// countingBroker counts publish attempts.
type countingBroker struct {
	*broker.Broker
	publishes int
}

func (c *countingBroker) Publish(e broker.Envelope) error {
	c.publishes++
	return c.Broker.Publish(e)
}

// TestRunLoop drives the production loop in a synctest bubble: time is fake
// there, so the test is exact and instant.
func TestRunLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		f.clock = nil // Run uses the wall clock, which the bubble fakes
		b := &countingBroker{Broker: broker.New(outbox.WallClock{})}
		if err := b.Subscribe("billing"); err != nil {
			t.Fatal(err)
		}
		r, err := outbox.NewRelay(outbox.DefaultConfig("relay-1"), outbox.Deps{DB: f.db, Broker: b, Gate: effect.Direct{}, Clock: outbox.WallClock{}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- r.Run(ctx) }()

		// Idle: one step at once, then one every IdlePoll (500 ms).
		time.Sleep(2*time.Second + time.Millisecond)
		synctest.Wait()
		b.FailNextPublishes(1)
		tx := f.db.Begin("service")
		for _, agg := range []string{"a", "b"} {
			if _, err := outbox.Append(tx, "e-"+agg, amended(agg), time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		// Next poll at 2.5 s: a fails (retry after 2 s), b is released.
		// Busy poll at 2.55 s sends b; a is sent at the first poll after 4.5 s.
		time.Sleep(3 * time.Second)
		synctest.Wait()
		if got := f.statuses(); len(got) != 2 || got[0] != outbox.Sent || got[1] != outbox.Sent {
			t.Fatalf("statuses after 5 s: %v, want both SENT", got)
		}
		if b.publishes != 3 {
			t.Fatalf("publishes = %d, want 3 (a failed, b, a again)", b.publishes)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Run returned %v, want context.Canceled", err)
		}
	})
}

// countingClock is the wall clock, counting how often it is read.
type countingClock struct{ reads int }

func (c *countingClock) Now() time.Time { c.reads++; return time.Now() }

// TestRunSleepsThroughThePause: after a failed send Run sleeps until the
// relay's pause ends (StepReport.PausedUntil) instead of stepping a paused
// relay every IdlePoll: within the pause nothing reads the relay's clock.
func TestRunSleepsThroughThePause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		f.clock = nil
		b := &countingBroker{Broker: broker.New(outbox.WallClock{})}
		if err := b.Subscribe("billing"); err != nil {
			t.Fatal(err)
		}
		cfg := outbox.DefaultConfig("relay-1")
		cfg.BackoffBase, cfg.BackoffCap, cfg.PauseCap = 10*time.Second, 60*time.Second, 10*time.Second
		clock := &countingClock{}
		r, err := outbox.NewRelay(cfg, outbox.Deps{DB: f.db, Broker: b, Gate: effect.Direct{}, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		b.FailNextPublishes(1)
		tx := f.db.Begin("service")
		if _, err := outbox.Append(tx, "e-a", amended("a"), time.Now()); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- r.Run(ctx) }()
		synctest.Wait() // the first step failed: a pause of 10 s
		if b.publishes != 1 {
			t.Fatalf("publishes = %d, want 1", b.publishes)
		}
		reads := clock.reads
		time.Sleep(10*time.Second - time.Millisecond)
		synctest.Wait()
		if clock.reads != reads {
			t.Errorf("Run stepped the paused relay: %d clock reads within its pause, want 0", clock.reads-reads)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Run returned %v, want context.Canceled", err)
		}
	})
}
