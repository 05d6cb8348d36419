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
