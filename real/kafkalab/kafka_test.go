package kafkalab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/orders"
	"outboxlab/real/cleanup"
	"outboxlab/real/pglab"
	"outboxlab/sim/check"
	"outboxlab/variant"
)

// server is the tests' PostgreSQL, started by the first test that needs it.
var server pglab.Lazy

func TestMain(m *testing.M) {
	cleanup.MustStart()
	code := m.Run()
	server.Stop()
	os.Exit(code)
}

// setup returns a fresh outbox database, a cluster with three partitions,
// and a context that ends the test after a minute.
func setup(t *testing.T) (context.Context, *pgxpool.Pool, []string) {
	t.Helper()
	pg, err := server.Server()
	if err != nil {
		if testing.Short() && errors.Is(err, pglab.ErrNoServer) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	pool, err := pg.Database(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	cluster, err := NewCluster(3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close)
	return ctx, pool, cluster.ListenAddrs()
}

// workload places n orders and amends each twice: 3n events, three per key.
func workload(ctx context.Context, t *testing.T, pool *pgxpool.Pool, n int) {
	t.Helper()
	eur := func(s string) domain.Money { return domain.MustMoney(s, "EUR") }
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("o-%d", i)
		for j, c := range []orders.Command{
			{Kind: orders.Place, OrderID: id, Amount: eur("10.00")},
			{Kind: orders.Amend, OrderID: id, Amount: eur("2.50"), Text: "gift wrap"},
			{Kind: orders.Amend, OrderID: id, Amount: eur("1.00"), Text: "express"},
		} {
			if err := pglab.Handle(ctx, pool, c, fmt.Sprintf("e-%d-%d", i, j+1)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// drain runs the relays in turn until none claims anything.
func drain(ctx context.Context, t *testing.T, relays ...*Relay) {
	t.Helper()
	for idle := 0; idle < 2; {
		idle++
		for _, r := range relays {
			n, err := r.Step(ctx, true)
			if err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				idle = 0
			}
		}
	}
}

func envelopes(ds []Delivered) []broker.Envelope {
	var out []broker.Envelope
	for _, d := range ds {
		out = append(out, d.Envelope)
	}
	return out
}

// TestOneOrderOneKeyOnePartitionInOrder is chapter 003's "same aggregate,
// same partition, ordered delivery": two relays publish 36 events of 12
// orders keyed by order id to three partitions; each order's events are
// read from one partition, in sequence order, and the orders spread over
// the partitions.
func TestOneOrderOneKeyOnePartitionInOrder(t *testing.T) {
	ctx, pool, seeds := setup(t)
	workload(ctx, t, pool, 12)
	var relays []*Relay
	for _, name := range []string{"relay-1", "relay-2"} {
		r, err := NewRelay(name, pool, seeds, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Client.Close()
		relays = append(relays, r)
	}
	drain(ctx, t, relays...)
	c, err := NewConsumer(seeds)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Client.Close()
	read, err := c.Read(ctx, 36)
	if err != nil {
		t.Fatal(err)
	}
	partition, last := map[string]int32{}, map[string]int{}
	used := map[int32]bool{}
	for _, d := range read {
		key := d.Envelope.Event.AggregateID
		if p, ok := partition[key]; ok && p != d.Partition {
			t.Errorf("%s in partitions %d and %d", key, p, d.Partition)
		}
		if seq := d.Envelope.Event.Sequence; seq != last[key]+1 {
			t.Errorf("%s#%d read after #%d", key, seq, last[key])
		}
		partition[key], last[key] = d.Partition, d.Envelope.Event.Sequence
		used[d.Partition] = true
	}
	if len(used) < 2 {
		t.Errorf("12 keys in %d partition(s), want them spread", len(used))
	}
	vs, err := pglab.Judge(ctx, pool, envelopes(read))
	if err != nil || check.Worst(vs) != variant.OK {
		t.Fatalf("verdict %v (%v)", vs, err)
	}
}

// TestARestartedRelaySendsAgainAndTheInboxAbsorbsIt: the idempotent
// producer deduplicates retries within its session only. relay-1 publishes
// and dies before it marks SENT; its lease runs out; relay-1 restarted is a
// new producer session and publishes the same messages again. Kafka holds
// both copies; billing's inbox applies each once.
func TestARestartedRelaySendsAgainAndTheInboxAbsorbsIt(t *testing.T) {
	ctx, pool, seeds := setup(t)
	workload(ctx, t, pool, 1)
	first, err := NewRelay("relay-1", pool, seeds, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := first.Step(ctx, false); err != nil || n != 1 { // o-1#1 only: #2 waits behind it
		t.Fatalf("published %d (%v), want 1", n, err)
	}
	first.Client.Close() // the process dies: sent, not marked
	time.Sleep(400 * time.Millisecond)
	again, err := NewRelay("relay-1", pool, seeds, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Client.Close()
	drain(ctx, t, again)
	c, err := NewConsumer(seeds)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Client.Close()
	read, err := c.Read(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	copies := 0
	for _, d := range read {
		if d.Envelope.ID == "e-1-1" {
			copies++
		}
	}
	vs, err := pglab.Judge(ctx, pool, envelopes(read))
	if copies != 2 || err != nil || check.Worst(vs) != variant.OK {
		t.Fatalf("%d copies of e-1-1 in Kafka (want 2), verdict %v (%v)", copies, vs, err)
	}
}

// TestABillingThatDiesBeforeItsCommitReadsAgain: billing reads the three
// events and dies before it commits its offsets; the next member of the
// group reads them again from the last committed offset. The inbox makes
// the second reading harmless: each effect once.
func TestABillingThatDiesBeforeItsCommitReadsAgain(t *testing.T) {
	ctx, pool, seeds := setup(t)
	workload(ctx, t, pool, 1)
	r, err := NewRelay("relay-1", pool, seeds, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Client.Close()
	drain(ctx, t, r)
	first, err := NewConsumer(seeds)
	if err != nil {
		t.Fatal(err)
	}
	before, err := first.Read(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	first.Client.Close() // dies before Commit
	second, err := NewConsumer(seeds)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Client.Close()
	after, err := second.Read(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := second.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	both := append(envelopes(before), envelopes(after)...)
	vs, err := pglab.Judge(ctx, pool, both)
	if len(after) != 3 || after[0].Offset != before[0].Offset || err != nil || check.Worst(vs) != variant.OK {
		t.Fatalf("read again %d from offset %d (first read from %d); verdict %v (%v)", len(after), after[0].Offset, before[0].Offset, vs, err)
	}
}
