package sqlitelab

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"outboxlab/lab/check"
	"outboxlab/real/cleanup"
)

func TestMain(m *testing.M) {
	testVariants = append(brokenPorts, portConfirmsFirst) // before Child: the children run them too
	Child()
	cleanup.MustStart()
	os.Exit(m.Run())
}

// program returns how a test starts its children: this test binary, which
// runs Child first and no test.
func program(t *testing.T) (string, []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe, []string{"-test.run=^$"}
}

func TestTheReferenceWithoutACrashIsOK(t *testing.T) {
	exe, args := program(t)
	res, err := Run(Config{Variant: "outbox", Relays: 2, Program: exe, Args: args})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != check.OK || res.Fired || len(res.Deaths) != 0 {
		t.Fatalf("outcome %s, fired %v, deaths %v\n%v\n%s", res.Outcome, res.Fired, res.Deaths, res.Violations, timeline(res))
	}
	t.Logf("%d commits in %s", res.Commits, res.Wall)
}

func TestAKilledRelayDiesBySignalAndANewProcessTakesOver(t *testing.T) {
	exe, args := program(t)
	res, err := Run(Config{Variant: "outbox", Relays: 1, Crash: "relay.after-send", Occurrence: 2, Program: exe, Args: args})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Fired || len(res.Deaths) != 1 {
		t.Fatalf("fired %v, deaths %v\n%s", res.Fired, res.Deaths, timeline(res))
	}
	d := res.Deaths[0]
	if d.Process != "relay-1" || d.Signal != syscall.SIGKILL || d.Successor == 0 || d.Successor == d.PID {
		t.Fatalf("death %+v, want relay-1 killed by SIGKILL and a new process after it\n%s", d, timeline(res))
	}
	if said := fmt.Sprintf("started, pid %d", d.Successor); !strings.Contains(timeline(res), said) {
		t.Fatalf("the successor never ran (no %q)\n%s", said, timeline(res))
	}
	if res.Outcome != check.OK {
		t.Fatalf("outcome %s: %v\n%s", res.Outcome, res.Violations, timeline(res))
	}
}

func timeline(res Result) string {
	s := ""
	for _, l := range res.Timeline {
		s += l + "\n"
	}
	s += fmt.Sprintf("outcome %s\n", res.Outcome)
	for _, v := range res.Violations {
		s += "  " + v.String() + "\n"
	}
	return s
}

// TestTheRealMatrixEqualsTheSimulators is the differential test: every
// crash point and fault row of every variant the real parts express gives
// on SQLite, with processes killed by SIGKILL and frozen by SIGSTOP, the
// verdict the simulator gives (or the one declared to differ; a race's,
// with its rate). It runs the runs that decide each cell;
// OUTBOXLAB_REAL_FULL=1 runs every occurrence with every relay count.
func TestTheRealMatrixEqualsTheSimulators(t *testing.T) {
	if testing.Short() {
		t.Skip("the real matrix starts hundreds of processes; without -short it runs")
	}
	exe, args := program(t)
	start := time.Now()
	cells, err := Matrix(MatrixConfig{Program: exe, Args: args, Full: FullDepth()})
	if err != nil {
		t.Fatal(err)
	}
	logMatrix(t, cells, start)
}

// logMatrix fails every cell that disagrees, with its explanation, and
// logs the race cells' rates and what the matrix took.
func logMatrix(t *testing.T, cells []Cell, start time.Time) {
	t.Helper()
	runs := 0
	for _, c := range cells {
		runs += c.Runs
		if !c.Agrees() {
			t.Errorf("%s", Explain(c))
		}
		if c.Race != nil {
			t.Logf("a race: %s at %s: %s", c.Variant, c.Point, c.RaceRates())
		}
	}
	t.Logf("%d cells, %d runs on real parts in %s", len(cells), runs, time.Since(start).Round(time.Millisecond))
}

// TestABatchOutlivesARelayThatRecoversNothing is what the differential test
// found when the parent handed the service its commands as fast as it
// answered: the relay's first claim took five messages, and
// no-inflight-recovery killed right after marking the first held the other
// four forever (STUCK), where the simulator's matrix cell is OK. Both are
// right for their schedule: the simulator's workload places a command a
// second, so each claim holds one message, and the parent now paces the
// commands the same way (Config.Burst off). The simulator reaches the batch
// with two crashes: its double-crash sweep has relay.after-mark#1 then
// relay.after-mark#1 STUCK (the restarted relay claims the five at once).
func TestABatchOutlivesARelayThatRecoversNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a matrix cell; without -short it runs")
	}
	exe, args := program(t)
	var timelines []string
	worst := check.OK
	for k := 1; ; k++ { // as a cell does: every occurrence, the worst counts
		res, err := Run(Config{Variant: "no-inflight-recovery", Relays: 1, Crash: "relay.after-mark", Occurrence: k, Burst: true, Program: exe, Args: args})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Fired {
			break
		}
		worst = max(worst, res.Outcome)
		timelines = append(timelines, timeline(res))
	}
	if worst != check.Stuck {
		t.Fatalf("worst outcome %s, want STUCK:\n%s", worst, strings.Join(timelines, "\n"))
	}
	paced, err := Run(Config{Variant: "no-inflight-recovery", Relays: 1, Crash: "relay.after-mark", Occurrence: 1, Program: exe, Args: args})
	if err != nil {
		t.Fatal(err)
	}
	if paced.Outcome != check.OK {
		t.Fatalf("paced like the simulator: outcome %s, want OK: %v\n%s", paced.Outcome, paced.Violations, timeline(paced))
	}
}
