package pglab

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"outboxlab/orders"
	"outboxlab/real/sqlitelab"
	"outboxlab/variant"
)

// emptyDatabases returns n fresh databases of the shared server, with no
// tables; without a server the test fails, or skips under -short, as
// database does.
func emptyDatabases(t *testing.T, n int) []string {
	t.Helper()
	server := sharedServer(t)
	var dsns []string
	for range n {
		dsn, err := server.EmptyDatabase(context.Background())
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
// the broker. Both relays claim (in one of up to three runs, each OK),
// and the checker (which flags a message
// claimed by two relays whose leases were live at once) finds nothing.
func TestTwoRelayProcessesOnPostgreSQL(t *testing.T) {
	dsn := emptyDatabases(t, 1)[0]
	exe, args := program(t)
	workload := placements(60)
	// Every run must be OK; that both relays claimed something is the
	// operating system's doing (a relay that just worked looks again at
	// once, an idle one after up to 32 ms), and on a loaded machine one
	// relay took all 60 once (CI, load 8): up to three runs, each with
	// its own seed, must show both at work.
	var res sqlitelab.Result
	for seed := uint64(1); seed <= 3; seed++ {
		var err error
		res, err = sqlitelab.Run(sqlitelab.Config{Variant: "outbox", Relays: 2, Workload: workload, Program: exe, Args: args, Postgres: dsn, Burst: true, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != variant.OK || res.Fired || len(res.Deaths) != 0 {
			t.Fatalf("seed %d: outcome %s, fired %v, deaths %v\n%v\n%s", seed, res.Outcome, res.Fired, res.Deaths, res.Violations, timeline(res))
		}
		if claimed(res, "relay-1") && claimed(res, "relay-2") {
			t.Logf("seed %d: %d commits in %s", seed, res.Commits, res.Wall)
			return
		}
		t.Logf("seed %d: one relay claimed every message", seed)
	}
	t.Errorf("in three runs one relay claimed every message: the two never worked at once\n%s", timeline(res))
}

func claimed(res sqlitelab.Result, relay string) bool {
	for _, l := range res.Timeline {
		if f := strings.Fields(l); len(f) > 3 && f[1] == relay && f[3] == "claimed" {
			return true
		}
	}
	return false
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
		if res.Outcome != variant.OK || res.Fired != (tc.crash != "") {
			t.Fatalf("crash %q: outcome %s, fired %v: %v\n%s", tc.crash, res.Outcome, res.Fired, res.Violations, timeline(res))
		}
		if again := strings.Contains(timeline(res), "in the inbox"); again != tc.twice {
			t.Fatalf("crash %q: a message delivered twice: %v, want %v\n%s", tc.crash, again, tc.twice, timeline(res))
		}
	}
}
