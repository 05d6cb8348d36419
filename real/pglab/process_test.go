package pglab

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"outboxlab/lab/check"
	"outboxlab/orders"
	"outboxlab/real/sqlitelab"
	"outboxlab/sim"
)

// emptyDatabases returns n fresh databases of the shared server, with no
// tables; without a server the test fails, or skips under -short, as
// database does.
func emptyDatabases(t *testing.T, n int) []string {
	t.Helper()
	if sharedErr != nil {
		if testing.Short() {
			t.Skip(sharedErr)
		}
		t.Fatal(sharedErr)
	}
	var dsns []string
	for range n {
		dsn, err := shared.EmptyDatabase(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		dsns = append(dsns, dsn)
	}
	return dsns
}

// program returns how a test starts the harness's children: this test
// binary, which runs sqlitelab.Child first and no test.
func program(t *testing.T) (string, []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe, []string{"-test.run=^$"}
}

// placements places orders o-1 to o-n.
func placements(n int) []orders.Command {
	var out []orders.Command
	for i := range n {
		out = append(out, place(fmt.Sprintf("o-%d", i+1)))
	}
	return out
}

func timeline(res sqlitelab.Result) string {
	return strings.Join(res.Timeline, "\n")
}

// TestTwoRelayProcessesOnPostgreSQL runs 60 orders through the process
// harness with the order database on PostgreSQL: the service and two relay
// processes that claim with FOR UPDATE SKIP LOCKED, billing consuming from
// the broker. Both relays claim, and the checker (which flags a message
// claimed by two relays whose leases were live at once) finds nothing.
func TestTwoRelayProcessesOnPostgreSQL(t *testing.T) {
	dsn := emptyDatabases(t, 1)[0]
	exe, args := program(t)
	workload := placements(60)
	res, err := sqlitelab.Run(sqlitelab.Config{Variant: "outbox", Relays: 2, Workload: workload, Program: exe, Args: args, Postgres: dsn, Burst: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != check.OK || res.Fired || len(res.Deaths) != 0 {
		t.Fatalf("outcome %s, fired %v, deaths %v\n%v\n%s", res.Outcome, res.Fired, res.Deaths, res.Violations, timeline(res))
	}
	for _, relay := range []string{"relay-1", "relay-2"} {
		if !claimed(res, relay) {
			t.Errorf("%s claimed nothing\n%s", relay, timeline(res))
		}
	}
	t.Logf("%d commits in %s", res.Commits, res.Wall)
}

func claimed(res sqlitelab.Result, relay string) bool {
	for _, l := range res.Timeline {
		if f := strings.Fields(l); len(f) > 3 && f[1] == relay && f[3] == "claimed" {
			return true
		}
	}
	return false
}

// TestTheMatrixOnPostgreSQLEqualsTheSimulators is the differential test of
// chapter 003's stack: every crash point of every variant the real parts
// express, the order database on PostgreSQL, the relays claiming with FOR
// UPDATE SKIP LOCKED (and cdc's reading the WAL through a replication
// slot), every process killed by SIGKILL at the point and
// restarted, gives the same verdict as in the simulator.
func TestTheMatrixOnPostgreSQLEqualsTheSimulators(t *testing.T) {
	if testing.Short() {
		t.Skip("the matrix starts hundreds of processes; without -short it runs")
	}
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
	dsn := emptyDatabases(t, 1)[0]
	exe, args := program(t)
	workload := placements(100)
	worst := func(variant, postgres string, tries int) (check.Outcome, sqlitelab.Result) {
		t.Helper()
		var last sqlitelab.Result
		for range tries {
			res, err := sqlitelab.Run(sqlitelab.Config{Variant: variant, Relays: 2, Workload: workload, Burst: true, Program: exe, Args: args, Postgres: postgres})
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != check.OK {
				return res.Outcome, res
			}
			last = res
		}
		return check.OK, last
	}
	if got, res := worst("claim-without-lock", dsn, 3); got != check.Unsafe {
		t.Errorf("claim-without-lock on PostgreSQL: %s, want UNSAFE: %v", got, res.Violations)
	} else {
		t.Logf("claim-without-lock on PostgreSQL: %s", res.Violations[0])
	}
	if got, res := worst("outbox", dsn, 1); got != check.OK {
		t.Errorf("outbox on PostgreSQL: %s, want OK: %v", got, res.Violations)
	}
	if got, res := worst("claim-without-lock", "", 1); got != check.OK {
		t.Errorf("claim-without-lock on SQLite: %s, want OK: %v", got, res.Violations)
	}
}

// TestTheCDCRelayAsAProcess runs the cdc variant through the process
// harness: the service inserts each message into the outbox and deletes
// it in the same transaction, the relay process reads the inserts from the
// WAL and confirms each transaction's end to its slot. Killed after a
// send, before it confirmed, the relay's successor gets the transaction
// again from the slot: two copies in the broker, one invoice (OK).
func TestTheCDCRelayAsAProcess(t *testing.T) {
	dsn := emptyDatabases(t, 1)[0]
	exe, args := program(t)
	for _, tc := range []struct {
		crash string
		twice bool
	}{{"", false}, {"relay.after-send", true}} {
		res, err := sqlitelab.Run(sqlitelab.Config{Variant: "cdc", Relays: 1, Crash: tc.crash, Occurrence: 2, Program: exe, Args: args, Postgres: dsn})
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != check.OK || res.Fired != (tc.crash != "") {
			t.Fatalf("crash %q: outcome %s, fired %v: %v\n%s", tc.crash, res.Outcome, res.Fired, res.Violations, timeline(res))
		}
		if again := strings.Contains(timeline(res), "in the inbox"); again != tc.twice {
			t.Fatalf("crash %q: a message delivered twice: %v, want %v\n%s", tc.crash, again, tc.twice, timeline(res))
		}
	}
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
	dsns := emptyDatabases(t, 2)
	exe, args := program(t)
	cells, err := sqlitelab.Matrix(sqlitelab.MatrixConfig{Variants: []string{"outbox", "offset-by-id", "offset-by-horizon", "publish-first"},
		Points: []string{"slow-commit"}, Program: exe, Args: args, Postgres: dsns})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"outbox": "OK", "offset-by-id": "STUCK", "offset-by-horizon": "OK", "publish-first": "OK"}
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
	if res.Outcome != check.OK || !slices.Contains(res.Situations, sim.LateCommit) {
		t.Errorf("offset-by-horizon: %s, situations %v; want OK in a run with a late commit\n%s", res.Outcome, res.Situations, timeline(res))
	}
}

// TestARaceCellStatesItsRate: claim-without-lock's verdict on real parts
// depends on whether two relays read one message before either claims it,
// which no crash point decides. Its cell runs several times, each with its
// own seed, and says how often it came to UNSAFE (in three of three, the
// times it was tried on PostgreSQL) and with which seeds.
func TestARaceCellStatesItsRate(t *testing.T) {
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
