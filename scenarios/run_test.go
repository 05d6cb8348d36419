package scenarios_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"outboxlab/scenarios"
	"outboxlab/sim"
)

// identity is what a run's name says: what the run is, without its
// variant, seed, relays, poll, flags or the words for its reader.
func identity(r sim.RunID) sim.RunID {
	return sim.RunID{Story: r.Story, Row: r.Row, Crashes: r.Crashes, Failure: r.Failure,
		Explore: r.Explore, ExploreRuns: r.ExploreRuns, ExploreSeed: r.ExploreSeed}
}

// matrixRuns are the runs the lab makes and names: every counterexample
// of two mistakes' cells (one of them with two relays) and of a polled
// cell, every row and assumption as its cell's run, the sweeps' crashes
// (one, and two in a row), the failure sweep's failed commits (one, a
// burst, under each of its fault rows), every story and mistake, and an
// exploration's run.
func matrixRuns(t *testing.T) []sim.RunID {
	t.Helper()
	m := scenarios.Matrix()
	var runs []sim.RunID
	for _, name := range []string{"dual-write", "recover-all"} {
		v, err := scenarios.FindVariant(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m.Points {
			c, err := m.RunCell(v, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, ce := range []*sim.RunID{c.Counterexample, c.MisstepRun} {
				if ce != nil {
					runs = append(runs, *ce)
				}
			}
		}
	}
	for _, p := range append(scenarios.Points(), scenarios.Assumptions()...) {
		runs = append(runs, sim.RunID{Row: p.ID})
		if p.Kind == sim.KindCrash {
			runs = append(runs, sim.RunID{Crashes: []sim.Crash{{Point: p.ID, Occurrence: 2}}},
				sim.RunID{Crashes: []sim.Crash{{Point: p.ID, Occurrence: 1}, {Point: "relay.after-send", Occurrence: 3}}})
		}
	}
	for _, b := range scenarios.CommitBoundaries {
		runs = append(runs, sim.RunID{Failure: &sim.Fault{Kind: sim.FaultCommitFailure, Point: b, Occurrence: 2}},
			sim.RunID{Failure: &sim.Fault{Kind: sim.FaultCommitFailure, Point: b, Occurrence: 1, Burst: sim.SweepBurst}})
		for _, row := range m.FailureRows {
			runs = append(runs, sim.RunID{Row: row, Failure: &sim.Fault{Kind: sim.FaultCommitFailure, Point: b, Occurrence: 1}})
		}
	}
	for _, name := range scenarios.ScenarioNames() {
		if _, err := scenarios.FindPoint(name); err == nil {
			continue // a story named as a row is the row's run, in the rows above
		}
		runs = append(runs, sim.RunID{Story: name})
	}
	return append(runs, sim.RunID{Explore: true, ExploreRuns: 300, ExploreSeed: 7})
}

// TestEveryRunsNameParsesBackToTheRun: every run the lab makes prints to
// a name (sim.RunID.Name) that ParseRun reads back to the same run, and
// its replay command and test flags carry that name: the name is printed
// in one place and read in one place, and the two agree.
func TestEveryRunsNameParsesBackToTheRun(t *testing.T) {
	runs := matrixRuns(t)
	twoRelays := 0
	for _, run := range runs {
		name := run.Name()
		if err := roundTrip(run); err != nil {
			t.Error(err)
		}
		if !run.Explore && !strings.Contains(run.Command("labrun"), " scenario "+name+" ") {
			t.Errorf("%q: the replay %q does not name it", name, run.Command("labrun"))
		}
		if !strings.HasPrefix(run.TestFlags(), "-lab.replay="+name) {
			t.Errorf("%q: the test flags %q do not name it", name, run.TestFlags())
		}
		if run.Relays > 1 {
			twoRelays++
		}
	}
	if len(runs) < 100 || twoRelays == 0 {
		t.Errorf("%d runs, %d of them with more relays: the test no longer sees the runs it means to", len(runs), twoRelays)
	}
}

// roundTrip returns an error if run's name does not parse back to run.
func roundTrip(run sim.RunID) error {
	name := run.Name()
	got, err := scenarios.ParseRun(name)
	if err != nil {
		return fmt.Errorf("%q: %w", name, err)
	}
	if d := cmp.Diff(identity(run), got); d != "" {
		return fmt.Errorf("ParseRun(%q) is not the run that printed it (-printed +parsed):\n%s", name, d)
	}
	return nil
}

// TestARunItsNameDoesNotSayIsFound is the broken thing
// TestEveryRunsNameParsesBackToTheRun guards against: the matrix once
// gave a crash point's counterexample its row as well as its crash
// ("relay.after-claim@1" read back without the row), and a run can say
// more than its name prints.
func TestARunItsNameDoesNotSayIsFound(t *testing.T) {
	for _, run := range []sim.RunID{
		{Row: "relay.after-claim", Crashes: []sim.Crash{{Point: "relay.after-claim", Occurrence: 1}}},
		{Row: "broker-outage", Crashes: []sim.Crash{{Point: "relay.after-send", Occurrence: 1}}},
		{Crashes: []sim.Crash{{Point: "relay.after-send", Occurrence: 1, ForGood: true}}},
	} {
		if err := roundTrip(run); err == nil {
			t.Errorf("%+v: its name %q parses back to it", run, run.Name())
		}
	}
}

// TestAnUnknownRunNamesWhatIsValid: a name that is no run fails with an
// error that says what is wrong and what would be valid.
func TestAnUnknownRunNamesWhatIsValid(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"relay.aftersend@1", "unknown scenario \"relay.aftersend@1\" (valid: happy-path,"},
		{"relay.after-send@0", "occurrence \"0\" is not a whole number >= 1"},
		{"relay.after-send@two", "occurrence \"two\" is not a whole number >= 1"},
		{"broker-outage@2", "a fault row has no occurrences"},
		{"relay.after-send@1+nothing@1", "\"nothing\" is not a crash point of the form process.before-effect or process.after-effect"},
		{"relay.after-send+commit-failure:relay.claim@1", "is not a fault row; want ROW+commit-failure:BOUNDARY@K with one of broker-outage,"},
		{"commit-failure:nowhere@1", "(boundaries: service.commit,"},
		{"commit-failure:relay.claim@3-2", "or commit-failure:BOUNDARY@K-L, the K-th to the L-th commit in a row"},
		{"explore:many:1", "want explore:RUNS:SEED, e.g. explore:300:1"},
		{"explore:0:1", "want explore:RUNS:SEED"},
		{"poison+relay.after-send@1", `"poison" is a fault row, and a row combines with a failed commit only (ROW+commit-failure:BOUNDARY@K, ROW one of broker-outage, poison,`},
		{"commit-failure:relay.claim@1-101", "a burst of 101 failed commits in a row: a database that fails this many commits in a row is down, not flickering (at most 100)"},
		{"explore:1000000001:1", "explore:1000000001:1: 1000000001 runs are too many (at most 1000000000)"},
		{"explore:99999999999999999999:1", "the runs are too many (at most 1000000000)"},
		{"", "unknown scenario \"\" (valid:"},
	} {
		_, err := scenarios.ParseRun(c.name)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseRun(%q): %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// TestAnExplorationIsNoScenario: labrun scenario plays no exploration's
// run (labrun explore does): its name is an unknown scenario there, as
// before the name was a run of its own.
func TestAnExplorationIsNoScenario(t *testing.T) {
	for _, name := range []string{"explore:300:1", "explore:x"} {
		if _, err := scenarios.FindScenario(name); err == nil || !strings.HasPrefix(err.Error(), "unknown scenario") {
			t.Errorf("FindScenario(%q): %v, want an unknown scenario", name, err)
		}
	}
}
