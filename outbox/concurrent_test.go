package outbox_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/outbox"
	"outboxlab/sim/check"
	"outboxlab/store"
)

// lockedPublisher is a broker stand-in for real goroutines: it counts the
// sends of each message under a lock.
type lockedPublisher struct {
	mu    sync.Mutex
	sends map[string]int
}

func (p *lockedPublisher) Publish(e broker.Envelope) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sends[e.ID]++
	time.Sleep(10 * time.Microsecond) // a send takes time: the other relay moves meanwhile
	return nil
}

// yieldingGate gives the other goroutines a chance before every effect, so
// that two relays' claim transactions really overlap.
type yieldingGate struct{}

func (yieldingGate) Cross(_ effect.Boundary, do func() error) error {
	runtime.Gosched()
	return do()
}

// TestTwoRelayGoroutinesNeverClaimOneMessageTwice runs two relays as real
// goroutines under Run, the production loop, over one database: the claim is
// the counterpart of FOR UPDATE SKIP LOCKED, so no message is ever claimed
// by both while a lease is live, and each is sent once. Run it with -race.
// Without the store's first-committer-wins check both relays' claims of one
// row commit, and this test fails.
func TestTwoRelayGoroutinesNeverClaimOneMessageTwice(t *testing.T) {
	const messages = 300
	db := store.New("orders")
	db.KeepLog()
	if err := outbox.Install(db); err != nil {
		t.Fatal(err)
	}
	pub := &lockedPublisher{sends: map[string]int{}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, owner := range []string{"relay-1", "relay-2"} {
		cfg := outbox.DefaultConfig(owner)
		cfg.BatchSize, cfg.BusyPoll, cfg.IdlePoll = 3, time.Microsecond, time.Millisecond
		r, err := outbox.NewRelay(cfg, outbox.Deps{DB: db, Broker: pub, Gate: yieldingGate{}, Clock: outbox.WallClock{}})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = r.Run(ctx)
		}()
	}
	tx := db.Begin("service")
	for i := range messages {
		agg := fmt.Sprintf("o-%d", i)
		if _, err := outbox.Append(tx, "e-"+agg, amended(agg), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for db.IndexLen(outbox.Table, outbox.IndexUnsent) > 0 && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	cancel()
	wg.Wait()
	if n := db.IndexLen(outbox.Table, outbox.IndexUnsent); n > 0 {
		t.Fatalf("%d messages still unsent after 20 s", n)
	}
	for _, breach := range check.Safety(db.Log(0), nil, nil) {
		t.Error(breach)
	}
	owners := map[string]bool{}
	for _, c := range db.Log(0) {
		owners[c.Owner] = true
	}
	if !owners["relay-1"] || !owners["relay-2"] {
		t.Fatalf("commits by %v: both relays must have worked for the test to mean anything", owners)
	}
	for id, n := range pub.sends {
		if n != 1 {
			t.Errorf("%s sent %d times", id, n)
		}
	}
}
