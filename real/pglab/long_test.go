package pglab

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"outboxlab/real/internal/realtest"
	"outboxlab/real/sqlitelab"
	"outboxlab/sim"
	"outboxlab/sim/check"
	"outboxlab/variant"
)

// The long tests: the differential matrix on PostgreSQL, the rows and
// races only PostgreSQL shows, and the SKIP LOCKED relays' throughput. See
// package realtest.

// TestTheMatrixOnPostgreSQLEqualsTheSimulators is the differential test of
// chapter 003's stack: every crash point of every variant the real parts
// express, the order database on PostgreSQL, the relays claiming with FOR
// UPDATE SKIP LOCKED (and cdc's reading the WAL through a replication
// slot), every process killed by SIGKILL at the point and
// restarted, gives the same verdict as in the simulator.
func TestTheMatrixOnPostgreSQLEqualsTheSimulators(t *testing.T) {
	realtest.Long(t)
	dsns := emptyDatabases(t, 4)
	exe, args := program(t)
	start := time.Now()
	cells, err := sqlitelab.Matrix(sqlitelab.MatrixConfig{Program: exe, Args: args, Postgres: dsns, Full: sqlitelab.FullDepth()})
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	for _, c := range cells {
		runs += c.Runs
		if !c.Agrees() {
			t.Errorf("%s", sqlitelab.Explain(c))
		}
		if c.Race != nil {
			t.Logf("a race: %s at %s: %s", c.Variant, c.Point, c.RaceRates())
		}
	}
	t.Logf("%d cells, %d runs on PostgreSQL in %s", len(cells), runs, time.Since(start).Round(time.Millisecond))
}

// TestTheCommitVisibilityGapOnRealProcesses runs the slow-commit row on
// real processes: two service instances, service-1 frozen (SIGSTOP) before
// its commit with its outbox id drawn while service-2 commits later
// orders, the commands routed to the instances as the simulator routes
// them. The relay that polls by id offset passed every run on real parts
// before (one service process never opens the gap); here it is STUCK, as
// in the simulator. The relay that reads past a transaction-id horizon
// (pg_snapshot_xmin) is OK, as declared, in a run that did open the gap (a
// late commit), and the reference is OK. publish-first is OK where the
// simulator says MISMATCH, as declared: PostgreSQL's row lock makes the
// other instance's amendment wait.
func TestTheCommitVisibilityGapOnRealProcesses(t *testing.T) {
	realtest.Long(t)
	dsns := emptyDatabases(t, 2)
	exe, args := program(t)
	cells, err := sqlitelab.Matrix(sqlitelab.MatrixConfig{Variants: []string{"outbox", "offset-by-id", "offset-by-horizon", "publish-first"},
		Points: []string{"slow-commit"}, Program: exe, Args: args, Postgres: dsns})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]variant.Outcome{"outbox": variant.OK, "offset-by-id": variant.Stuck, "offset-by-horizon": variant.OK, "publish-first": variant.OK}
	for _, c := range cells {
		if c.Outcome != want[c.Variant] || !c.Agrees() {
			t.Errorf("%s at slow-commit: %s, want %s\n%s", c.Variant, c.Outcome, want[c.Variant], sqlitelab.Explain(c))
		}
	}
	rc, err := sqlitelab.RunConfig("offset-by-horizon", "slow-commit", 1, true)
	if err != nil {
		t.Fatal(err)
	}
	rc.Program, rc.Args, rc.Postgres = exe, args, dsns[0]
	res, err := sqlitelab.Run(rc)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != variant.OK || !slices.Contains(res.Situations, sim.LateCommit) {
		t.Errorf("offset-by-horizon: %s, situations %v; want OK in a run with a late commit\n%s", res.Outcome, res.Situations, timeline(res))
	}
}

// TestARaceCellStatesItsRate: claim-without-lock's verdict on real parts
// depends on whether two relays read one message before either claims it,
// which no crash point decides. Its cell runs several times, each with its
// own seed, and says how often it came to UNSAFE (in three of three, the
// times it was tried on PostgreSQL) and with which seeds.
func TestARaceCellStatesItsRate(t *testing.T) {
	realtest.Long(t)
	dsns := emptyDatabases(t, 1)
	exe, args := program(t)
	cells, err := sqlitelab.Matrix(sqlitelab.MatrixConfig{Variants: []string{"claim-without-lock"}, Points: []string{"service.after-commit"}, Program: exe, Args: args, Postgres: dsns})
	if err != nil {
		t.Fatal(err)
	}
	c := cells[0]
	if c.Race == nil || c.Race.N != 3 || !c.Agrees() || !strings.Contains(c.RaceRates(), " of 3 runs (seed") {
		t.Fatalf("a race cell: race %+v, agrees %v, rates %q\n%s", c.Race, c.Agrees(), c.RaceRates(), sqlitelab.Explain(c))
	}
	t.Logf("claim-without-lock at service.after-commit on PostgreSQL: %s", c.RaceRates())
}

// TestAClaimWithoutALockIsUnsafeOnPostgreSQL runs claim-without-lock (the
// reference relay with its claim's row lock left out) on real parts: on
// PostgreSQL two relays both claim a message another had just claimed, and
// the checker calls the run UNSAFE; on SQLite the same relay is safe,
// because SQLite's one writer runs the claims one after another (the
// simulator's claim-without-lock is UNSAFE because its store, like
// PostgreSQL, lets two transactions interleave). The reference on
// PostgreSQL under the same load is OK. The interleaving is a race, so a
// run is 100 orders with two relays, and the mistake must show within three
// runs.
func TestAClaimWithoutALockIsUnsafeOnPostgreSQL(t *testing.T) {
	realtest.Long(t)
	dsn := emptyDatabases(t, 1)[0]
	exe, args := program(t)
	workload := placements(100)
	worst := func(name, postgres string, tries int) (variant.Outcome, sqlitelab.Result) {
		t.Helper()
		var last sqlitelab.Result
		for range tries {
			res, err := sqlitelab.Run(sqlitelab.Config{Variant: name, Relays: 2, Workload: workload, Burst: true, Program: exe, Args: args, Postgres: postgres})
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != variant.OK {
				return res.Outcome, res
			}
			last = res
		}
		return variant.OK, last
	}
	if got, res := worst("claim-without-lock", dsn, 3); got != variant.Unsafe {
		t.Errorf("claim-without-lock on PostgreSQL: %s, want UNSAFE: %v", got, res.Violations)
	} else {
		t.Logf("claim-without-lock on PostgreSQL: %s", res.Violations[0])
	}
	if got, res := worst("outbox", dsn, 1); got != variant.OK {
		t.Errorf("outbox on PostgreSQL: %s, want OK: %v", got, res.Violations)
	}
	if got, res := worst("claim-without-lock", "", 1); got != variant.OK {
		t.Errorf("claim-without-lock on SQLite: %s, want OK: %v", got, res.Violations)
	}
}

// TestSkipLockedRelaysNeverShareALiveClaim runs 1, 2 and 4 relays over the
// same outbox, with a free publish and with one that takes a millisecond:
// no message is ever claimed by two relays whose leases were live at once,
// each is published once, and the checker finds nothing.
func TestSkipLockedRelaysNeverShareALiveClaim(t *testing.T) {
	realtest.Long(t)
	for _, tc := range []struct {
		relays   int
		sendCost time.Duration
	}{{1, 0}, {2, 0}, {4, 0}, {1, time.Millisecond}, {2, time.Millisecond}, {4, time.Millisecond}} {
		relays := tc.relays
		t.Run(fmt.Sprintf("%d relays, send %s", relays, tc.sendCost), func(t *testing.T) {
			ctx := context.Background()
			pool := database(t)
			const n = 1000
			for i := range n {
				if err := Handle(ctx, pool, place(fmt.Sprintf("o-%d", i+1)), fmt.Sprintf("e-%d", i+1)); err != nil {
					t.Fatal(err)
				}
			}
			start := time.Now()
			var wg sync.WaitGroup
			errs := make([]error, relays)
			for r := range relays {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[r] = relayUntilDone(ctx, pool, fmt.Sprintf("relay-%d", r+1), tc.sendCost)
				}()
			}
			wg.Wait()
			elapsed := time.Since(start)
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			if both, err := overlaps(ctx, pool); err != nil || len(both) > 0 {
				t.Fatalf("claimed by two live relays: %v %v", both, err)
			}
			vs, err := judge(ctx, pool)
			if err != nil {
				t.Fatal(err)
			}
			var published int
			if err := pool.QueryRow(ctx, `SELECT COUNT(*) FROM published`).Scan(&published); err != nil || published != n || check.Worst(vs) != variant.OK {
				t.Fatalf("%d published (want %d), verdict %s: %v", published, n, check.Worst(vs), vs)
			}
			t.Logf("%d relay(s), send %s: %d messages claimed, published and marked in %s: %.0f claims/s",
				relays, tc.sendCost, n, elapsed.Round(time.Millisecond), n/elapsed.Seconds())
		})
	}
}
