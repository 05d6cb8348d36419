package pglab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"outboxlab/domain"
	"outboxlab/orders"
	"outboxlab/real/cleanup"
	"outboxlab/real/sqlitelab"
	"outboxlab/scenarios"
	"outboxlab/sim/check"
	"outboxlab/variant"
)

// lazy is the tests' shared server, started by the first test that needs
// it (see sharedServer).
var lazy Lazy

func TestMain(m *testing.M) {
	sqlitelab.Child() // a child process of a run on real parts does its part and exits here
	cleanup.MustStart()
	code := m.Run()
	lazy.Stop()
	os.Exit(code)
}

// database returns a pool on a fresh database of the shared server with the
// schema installed. Without a server the test fails, or skips under -short,
// with the same message.
func database(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool, err := sharedServer(t).Database(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// sharedServer returns the shared server, started on the first call.
// Without one the test fails, or skips under -short, saying why.
func sharedServer(t *testing.T) *Server {
	t.Helper()
	s, err := lazy.Server()
	if err != nil {
		if testing.Short() && errors.Is(err, ErrNoServer) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	return s
}

func place(id string) orders.Command {
	return orders.Command{Kind: orders.Place, OrderID: id, Amount: domain.MustMoney("10.00", "EUR")}
}

// relayUntilDone claims, publishes and marks until nothing is left; each
// publish takes sendCost on top (a broker across a network).
func relayUntilDone(ctx context.Context, pool *pgxpool.Pool, owner string, sendCost time.Duration) error {
	for idle := 0; idle < 3; {
		batch, err := ClaimDue(ctx, pool, owner, 10, 5*time.Second)
		if err != nil {
			return err
		}
		if len(batch) == 0 {
			idle++
			time.Sleep(time.Millisecond)
			continue
		}
		idle = 0
		for _, c := range batch {
			time.Sleep(sendCost)
			if err := Publish(ctx, pool, owner, c); err != nil {
				return err
			}
			if _, err := MarkSent(ctx, pool, owner, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// overlaps returns the claims of one message by two relays whose leases
// were live at once.
func overlaps(ctx context.Context, pool *pgxpool.Pool) ([]string, error) {
	rows, err := pool.Query(ctx, `SELECT a.message_id || ': ' || a.owner || ' and ' || b.owner
		FROM claims a JOIN claims b ON a.message_id = b.message_id AND a.owner < b.owner
		WHERE a.claimed_at < b.lease_until AND b.claimed_at < a.lease_until`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// TestTheOverlapCheckCatchesAClaimWithoutALock claims as claim-without-lock
// does (read the due ids, then write the claims over them, no row lock
// taken by the read) in the interleaving that breaks it: both relays read
// before either writes. The overlap check finds two live claims; the same
// interleaving with FOR UPDATE SKIP LOCKED gives the second relay nothing.
func TestTheOverlapCheckCatchesAClaimWithoutALock(t *testing.T) {
	ctx := context.Background()
	pool := database(t)
	if err := Handle(ctx, pool, place("o-1"), "e-1"); err != nil {
		t.Fatal(err)
	}
	read := func(tx pgx.Tx, lock string) []int64 {
		rows, err := tx.Query(ctx, `SELECT id FROM outbox WHERE status = 'PENDING' ORDER BY id `+lock)
		if err != nil {
			t.Fatal(err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	write := func(tx pgx.Tx, owner string, ids []int64) {
		for _, id := range ids {
			if _, err := tx.Exec(ctx, `UPDATE outbox SET status = 'IN_FLIGHT', lease_owner = $2, lease_until = clock_timestamp() + interval '5 seconds' WHERE id = $1`, id, owner); err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO claims SELECT message_id, $2, clock_timestamp(), lease_until FROM outbox WHERE id = $1`, id, owner); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		lock     string
		overlaps int
	}{{"", 1}, {"FOR UPDATE SKIP LOCKED", 0}} {
		if _, err := pool.Exec(ctx, `UPDATE outbox SET status = 'PENDING', lease_owner = NULL, lease_until = NULL; DELETE FROM claims`); err != nil {
			t.Fatal(err)
		}
		a, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		idsA, idsB := read(a, tc.lock), read(b, tc.lock)
		write(a, "relay-1", idsA)
		write(b, "relay-2", idsB)
		both, err := overlaps(ctx, pool)
		if err != nil || len(both) != tc.overlaps {
			t.Errorf("read %q: overlapping live claims %v (%v), want %d", tc.lock, both, err, tc.overlaps)
		}
	}
}

// TestALeaseExpiryHandsTheMessageOver: relay-1 claims and freezes past its
// lease; relay-2 takes the message over, sends and marks it; relay-1 wakes,
// sends again, and its mark is refused (the fence). Two copies in the
// broker, one invoice: OK, as the simulator's stall row for outbox.
func TestALeaseExpiryHandsTheMessageOver(t *testing.T) {
	ctx := context.Background()
	pool := database(t)
	if err := Handle(ctx, pool, place("o-1"), "e-1"); err != nil {
		t.Fatal(err)
	}
	first, err := ClaimDue(ctx, pool, "relay-1", 10, 300*time.Millisecond)
	if err != nil || len(first) != 1 {
		t.Fatalf("relay-1 claimed %v, %v", first, err)
	}
	if none, err := ClaimDue(ctx, pool, "relay-2", 10, 5*time.Second); err != nil || len(none) != 0 {
		t.Fatalf("relay-2 claimed %v under relay-1's live lease (%v)", none, err)
	}
	time.Sleep(400 * time.Millisecond) // relay-1 freezes past its lease
	second, err := ClaimDue(ctx, pool, "relay-2", 10, 5*time.Second)
	if err != nil || len(second) != 1 {
		t.Fatalf("relay-2 claimed %v after the lease ran out, %v", second, err)
	}
	for _, step := range []struct {
		owner string
		c     Claimed
		mark  bool
	}{{"relay-2", second[0], true}, {"relay-1", first[0], false}} {
		if err := Publish(ctx, pool, step.owner, step.c); err != nil {
			t.Fatal(err)
		}
		if marked, err := MarkSent(ctx, pool, step.owner, step.c); err != nil || marked != step.mark {
			t.Fatalf("%s's mark: %v (%v), want %v", step.owner, marked, err, step.mark)
		}
	}
	vs, err := judge(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	envs, _ := Envelopes(ctx, pool)
	if len(envs) != 2 || check.Worst(vs) != variant.OK {
		t.Fatalf("%d copies published, verdict %v", len(envs), vs)
	}
	simulatorSays(t, "outbox", "stall", variant.OK)
}

// TestTheCommitVisibilityGap: service-1's transaction draws id 1 and stays
// open while service-2 commits id 2; the relay polls, sends id 2 and moves
// its offset to 2; then service-1 commits. The offset-by-id relay never
// reads id 1 (STUCK: the message waits in the outbox for good); the relay
// with the transaction-id horizon waits for service-1 and sends both in
// order (OK). The simulator's slow-commit row says the same of the
// offset-by-id and outbox variants.
func TestTheCommitVisibilityGap(t *testing.T) {
	for _, tc := range []struct {
		horizon bool
		want    variant.Outcome
		sim     string
	}{{false, variant.Stuck, "offset-by-id"}, {true, variant.OK, "outbox"}} {
		t.Run(tc.sim, func(t *testing.T) {
			ctx := context.Background()
			pool := database(t)
			slow, err := pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer slow.Rollback(ctx)
			if err := Decide(ctx, slow, place("o-1"), "e-1"); err != nil { // draws id 1
				t.Fatal(err)
			}
			if err := Handle(ctx, pool, place("o-2"), "e-2"); err != nil { // id 2, committed
				t.Fatal(err)
			}
			var offset int64
			poll := func() {
				batch, err := PollAfter(ctx, pool, offset, tc.horizon)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range batch {
					if err := Publish(ctx, pool, "relay-1", c); err != nil {
						t.Fatal(err)
					}
					if err := MarkSentByID(ctx, pool, c); err != nil {
						t.Fatal(err)
					}
					offset = c.ID
				}
			}
			poll()
			if err := slow.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			for range 3 {
				poll()
			}
			vs, err := judge(ctx, pool)
			if err != nil {
				t.Fatal(err)
			}
			if check.Worst(vs) != tc.want {
				t.Fatalf("verdict %s, want %s: %v", check.Worst(vs), tc.want, vs)
			}
			simulatorSays(t, tc.sim, "slow-commit", tc.want)
		})
	}
}

// simulatorSays asserts the simulator's cell.
func simulatorSays(t *testing.T, variantName, point string, want variant.Outcome) {
	t.Helper()
	v, err := scenarios.FindVariant(variantName)
	if err != nil {
		t.Fatal(err)
	}
	p, err := scenarios.FindPoint(point)
	if err != nil {
		t.Fatal(err)
	}
	cell, err := scenarios.Matrix().RunCell(v, p)
	if err != nil {
		t.Fatal(err)
	}
	if cell.Outcome != want {
		t.Errorf("the simulator's %s at %s is %s; PostgreSQL's %s", variantName, point, cell.Outcome, want)
	}
}

// judge judges with what the broker table holds, in order.
func judge(ctx context.Context, pool *pgxpool.Pool) ([]check.Violation, error) {
	envs, err := Envelopes(ctx, pool)
	if err != nil {
		return nil, err
	}
	return Judge(ctx, pool, envs)
}

// TestAnAggregatesLaterMessageWaitsForTheOneBefore: while relay-1 holds
// o-1#1, relay-2 gets nothing, not o-1#2, which it could publish first;
// once #1 is SENT, #2 is due.
func TestAnAggregatesLaterMessageWaitsForTheOneBefore(t *testing.T) {
	ctx := context.Background()
	pool := database(t)
	if err := Handle(ctx, pool, place("o-1"), "e-1"); err != nil {
		t.Fatal(err)
	}
	amend := orders.Command{Kind: orders.Amend, OrderID: "o-1", Amount: domain.MustMoney("2.50", "EUR")}
	if err := Handle(ctx, pool, amend, "e-2"); err != nil {
		t.Fatal(err)
	}
	held, err := ClaimDue(ctx, pool, "relay-1", 1, 5*time.Second)
	if err != nil || len(held) != 1 || held[0].MessageID != "e-1" {
		t.Fatalf("relay-1 claimed %v (%v), want e-1", held, err)
	}
	if got, err := ClaimDue(ctx, pool, "relay-2", 10, 5*time.Second); err != nil || len(got) != 0 {
		t.Fatalf("relay-2 claimed %v (%v) while o-1#1 is in flight", got, err)
	}
	if err := Publish(ctx, pool, "relay-1", held[0]); err != nil {
		t.Fatal(err)
	}
	if ok, err := MarkSent(ctx, pool, "relay-1", held[0]); !ok || err != nil {
		t.Fatalf("mark: %v %v", ok, err)
	}
	if got, err := ClaimDue(ctx, pool, "relay-2", 10, 5*time.Second); err != nil || len(got) != 1 || got[0].MessageID != "e-2" {
		t.Fatalf("relay-2 claimed %v (%v) after #1 was SENT, want e-2", got, err)
	}
}

// slotName is a slot name unique on the shared server for this test.
func slotName(t *testing.T) string {
	return fmt.Sprintf("s%d", time.Now().UnixNano())
}

// changes places o-1 .. o-n and amends each once: 2n inserts in 2n
// transactions.
func changes(ctx context.Context, t *testing.T, pool *pgxpool.Pool, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		id := fmt.Sprintf("o-%d", i)
		if err := Handle(ctx, pool, place(id), "e-"+id+"-1"); err != nil {
			t.Fatal(err)
		}
		amend := orders.Command{Kind: orders.Amend, OrderID: id, Amount: domain.MustMoney("2.50", "EUR")}
		if err := Handle(ctx, pool, amend, "e-"+id+"-2"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAnIdleSlotHoldsWALBack measures the trade-off chapter 003 names: a
// slot nobody reads keeps every WAL segment since its position, and the
// server cannot recycle them.
func TestAnIdleSlotHoldsWALBack(t *testing.T) {
	ctx := context.Background()
	pool := database(t)
	slot := slotName(t)
	if err := CreateSlot(ctx, pool, slot); err != nil {
		t.Fatal(err)
	}
	defer pool.Exec(context.Background(), `SELECT pg_drop_replication_slot($1)`, slot)
	before, err := RetainedWAL(ctx, pool, slot)
	if err != nil {
		t.Fatal(err)
	}
	changes(ctx, t, pool, 1, 1000) // 2,000 transactions
	after, err := RetainedWAL(ctx, pool, slot)
	if err != nil {
		t.Fatal(err)
	}
	if after-before < 1<<20 {
		t.Fatalf("the idle slot holds %d bytes of WAL after 2,000 transactions, %d before; want it to grow by more than 1 MiB", after, before)
	}
	t.Logf("an idle slot holds %.1f MiB of WAL after 2,000 order transactions (%.0f bytes each)", float64(after)/(1<<20), float64(after-before)/2000)
}
