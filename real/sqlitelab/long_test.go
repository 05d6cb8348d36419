package sqlitelab

import (
	"context"
	"strings"
	"testing"
	"time"

	"outboxlab/real/internal/realtest"
	"outboxlab/real/pglab"
	"outboxlab/variant"
)

// The long tests: the differential matrix on SQLite and the checks that
// stage whole rows or cells on real processes. See package realtest.

// TestTheRealMatrixEqualsTheSimulators is the differential test: every
// crash point and fault row of every variant the real parts express gives
// on SQLite, with processes killed by SIGKILL and frozen by SIGSTOP, the
// verdict the simulator gives (or the one declared to differ; a race's,
// with its rate). It runs the runs that decide each cell;
// OUTBOXLAB_REAL_FULL=1 runs every occurrence with every relay count.
func TestTheRealMatrixEqualsTheSimulators(t *testing.T) {
	realtest.Long(t)
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
	realtest.Long(t)
	exe, args := program(t)
	var timelines []string
	worst := variant.OK
	for k := 1; ; k++ { // as a cell does: every occurrence, the worst counts
		// The relay freezes before its first claim until the burst is
		// placed, so that the claim takes the whole batch: left to the
		// operating system, a relay that polled between two commands on a
		// loaded machine claimed one message at a time, and every run was
		// OK (1 of 5 CI runs).
		res, err := Run(Config{Variant: "no-inflight-recovery", Relays: 1, Crash: "relay.after-mark", Occurrence: k, Burst: true, Program: exe, Args: args,
			Stalls: []Stall{{Process: "relay-1", Point: "relay.before-claim", For: time.Second}}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Fired {
			break
		}
		worst = max(worst, res.Outcome)
		timelines = append(timelines, timeline(res))
	}
	if worst != variant.Stuck {
		t.Fatalf("worst outcome %s, want STUCK:\n%s", worst, strings.Join(timelines, "\n"))
	}
	paced, err := Run(Config{Variant: "no-inflight-recovery", Relays: 1, Crash: "relay.after-mark", Occurrence: 1, Program: exe, Args: args})
	if err != nil {
		t.Fatal(err)
	}
	if paced.Outcome != variant.OK {
		t.Fatalf("paced like the simulator: outcome %s, want OK: %v\n%s", paced.Outcome, paced.Violations, timeline(paced))
	}
}

// TestTheBrokenRelaysFailWhereTheRowsStageThem runs the fault rows that
// freeze relays on real processes (SIGSTOP past the lease, SIGCONT; a
// frozen relay killed and restarted) for the reference and the relays that
// passed every run on real parts before: the relay that marks SENT without
// its lease check (no-fencing) passed because no lease ever expired in a
// real run. Each must give the simulator's verdict, and the reference must
// reach what each row exists for (a lease taken over, a claim released).
func TestTheBrokenRelaysFailWhereTheRowsStageThem(t *testing.T) {
	realtest.Long(t)
	cells := []struct {
		variant, point string
		want           variant.Outcome
	}{
		{"outbox", "stall", variant.OK},
		{"no-fencing", "stall", variant.Unsafe},
		{"non-idempotent-consumer", "stall", variant.Duplicate},
		{"outbox", "stall-outage", variant.OK},
		{"mark-before-send", "stall-outage", variant.Lost},
		{"outbox", "relay-restart", variant.OK},
		{"recover-all", "relay-restart", variant.Unsafe},
		{"no-inflight-recovery", "relay-restart", variant.Stuck},
		{"mark-before-send", "relay-restart", variant.Lost},
	}
	exe, args := program(t)
	for _, tc := range cells {
		t.Run(tc.variant+"/"+tc.point, func(t *testing.T) {
			t.Parallel()
			got, err := Matrix(MatrixConfig{Variants: []string{tc.variant}, Points: []string{tc.point}, Program: exe, Args: args})
			if err != nil {
				t.Fatal(err)
			}
			c := got[0]
			if c.Outcome != tc.want || c.Sim != tc.want || !c.Agrees() {
				t.Errorf("real parts %s, simulator %s, want %s both:\n%s", c.Outcome, c.Sim, tc.want, Explain(c))
			}
		})
	}
}

// TestACDCRelayThatConfirmsFirstIsCaught kills the CDC relay right after it
// confirmed a position to its slot (relay.after-offset), the reference and
// the broken port: the reference confirmed what it published, and its
// successor resumes after it (OK, as the simulator's cdc at the same
// point); the port confirmed a transaction it had not published, and its
// successor never gets it (LOST). The real matrix has the point now, and
// its differential catches the port; before, relay.after-offset was no
// point of the real matrix, and the port passed it.
func TestACDCRelayThatConfirmsFirstIsCaught(t *testing.T) {
	realtest.Long(t)
	if err := pglab.Available(); err != nil {
		t.Fatal(err)
	}
	server, err := pglab.StartServer()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Stop()
	dsn, err := server.EmptyDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	exe, args := program(t)
	for _, tc := range []struct {
		variant string
		want    variant.Outcome
	}{{"cdc", variant.OK}, {portConfirmsFirst.Name, variant.Lost}} {
		rc := Config{Variant: tc.variant, Relays: 1, Crash: "relay.after-offset", Occurrence: 2, Program: exe, Args: args, Postgres: dsn}
		res, err := Run(rc)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Fired || res.Outcome != tc.want {
			t.Errorf("%s at relay.after-offset@2: fired %v, %s, want %s: %v\n%s", tc.variant, res.Fired, res.Outcome, tc.want, res.Violations, timeline(res))
		}
		sim, err := SimTimeline(rc)
		if err != nil {
			t.Fatal(err)
		}
		if last := sim[len(sim)-1]; last != "verdict: OK" {
			t.Errorf("the simulator's cdc at relay.after-offset@2: %s, want OK", last)
		}
	}
	cells, err := Matrix(MatrixConfig{Variants: []string{"cdc", portConfirmsFirst.Name}, Points: []string{"relay.after-offset"}, Program: exe, Args: args, Postgres: []string{dsn}})
	if err != nil {
		t.Fatal(err)
	}
	if ref, port := cells[0], cells[1]; !ref.Agrees() || port.Agrees() || port.Outcome != variant.Lost || port.Sim != variant.OK {
		t.Errorf("the matrix at relay.after-offset: cdc %s (simulator %s), the port %s (simulator %s); want cdc to agree and the port LOST against OK", ref.Outcome, ref.Sim, port.Outcome, port.Sim)
	}
}

// TestAPublishNotAwaitedIsCaughtWhereTheBrokerDropsIt: a relay that
// marks SENT while its publish is still on its way (an asynchronous
// producer whose delivery report nobody reads) gives the reference's
// verdicts wherever the broker stores what it is sent; the row
// publish-timeout-dropped has the broker drop o-1#1's first publish and
// answer its publisher only once the message is SENT (or after
// DropWait): the message is LOST where the simulator's reference is OK,
// and the differential catches the port. The reference waits for the
// answer and sends again (OK), mark-before-send is LOST there as in the
// simulator.
func TestAPublishNotAwaitedIsCaughtWhereTheBrokerDropsIt(t *testing.T) {
	realtest.Long(t)
	exe, args := program(t)
	cells, err := Matrix(MatrixConfig{Variants: []string{"port-publish-unawaited", "outbox", "mark-before-send"}, Points: []string{"publish-timeout-dropped"}, Program: exe, Args: args})
	if err != nil {
		t.Fatal(err)
	}
	port, ref, mark := cells[0], cells[1], cells[2]
	if port.Agrees() || port.Outcome != variant.Lost || port.Sim != variant.OK || !strings.Contains(Explain(port), "real parts LOST, simulator OK") {
		t.Errorf("the unawaited publish: real %s, simulator %s; want LOST against OK\n%s", port.Outcome, port.Sim, Explain(port))
	}
	if !ref.Agrees() || ref.Outcome != variant.OK || !mark.Agrees() || mark.Outcome != variant.Lost {
		t.Errorf("the reference %s (agrees %v), mark-before-send %s (agrees %v); want OK and LOST, as the simulator\n%s\n%s", ref.Outcome, ref.Agrees(), mark.Outcome, mark.Agrees(), Explain(ref), Explain(mark))
	}
}

func TestTheDifferentialTestCatchesABrokenPort(t *testing.T) {
	realtest.Long(t)
	exe, args := program(t)
	for _, tc := range []struct {
		variant, point string
		real           variant.Outcome
	}{
		{"port-acks-before-commit", "consumer.before-commit", variant.Lost},
		{"port-inbox-row-first", "consumer.before-commit", variant.Lost},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			cells, err := Matrix(MatrixConfig{Variants: []string{tc.variant}, Points: []string{tc.point}, Program: exe, Args: args})
			if err != nil {
				t.Fatal(err)
			}
			c := cells[0]
			if c.Agrees() || c.Outcome != tc.real || c.Sim != variant.OK {
				t.Fatalf("%s at %s: real %s, simulator %s; want real %s against the simulator's OK", tc.variant, tc.point, c.Outcome, c.Sim, tc.real)
			}
			if got := Explain(c); !containsAll(got, "real parts LOST, simulator OK", "rerun the cell on real parts (in real/): go run ./cmd/labrun-real matrix --variant", "on real parts", "in the simulator", "crash consumer.before-commit") {
				t.Errorf("the explanation lacks a timeline:\n%s", got)
			}
		})
	}
}
