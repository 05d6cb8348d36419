package outboxlab_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"outboxlab/broker"
	"outboxlab/internal/longtest"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// TestCrashMatrix runs every variant at every point of the default matrix,
// every occurrence of every crash point, and asserts each cell against the
// variant's declaration. A mistake that stops failing fails this test as
// surely as the reference failing does.
func TestCrashMatrix(t *testing.T) { assertCells(t, scenarios.Variants()) }

// TestExtraVariantsKeepTheirDeclarations does the same for the variants
// beyond the matrix's columns (scenarios.Extras): labrun plays and grades
// them on request, and each cell must still be what they declare.
func TestExtraVariantsKeepTheirDeclarations(t *testing.T) {
	longtest.Only(t, "long_caught", "TestCrashMatrix, the same for the matrix's columns")
	assertCells(t, scenarios.Extras())
}

// assertCells runs every variant of vs at every point of the default
// matrix and asserts each cell against the variant's declaration.
func assertCells(t *testing.T, vs []variant.Variant) {
	m := scenarios.Matrix()
	known := map[string]bool{}
	for _, p := range m.Points {
		known[p.ID] = true
	}
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			for point := range v.Expect {
				if !known[point] {
					t.Errorf("%s declares an outcome at %q, which is not a row of the matrix", v.Name, point)
				}
			}
			for _, p := range m.Points {
				t.Run(p.ID, func(t *testing.T) {
					t.Parallel()
					cell, err := m.RunCell(v, p)
					if err != nil {
						t.Fatal(err)
					}
					if cell.Outcome == variant.NotApplicable && cell.Expected != variant.OK {
						t.Fatalf("%s declares %s at %s, but the workload never reaches that point: the row tests nothing", v.Name, cell.Expected, p.ID)
					}
					if !cell.Matches() {
						t.Errorf("%s at %s: got %s after %d run(s), declared %s\n%s", v.Name, p.ID, cell.Outcome, cell.Runs, cell.Expected, explain(cell))
					}
					// The situations a row declares are the reference's
					// mechanics (claims, retries, the inbox); the
					// alternatives have other ones.
					if missing := cell.Missing(); v.Name == variant.Outbox().Name && len(missing) > 0 {
						t.Errorf("%s at %s: no run reached %v, which the row exists to produce: the row tests nothing there (reached: %v)",
							v.Name, p.ID, missing, sim.SortedSituations(cell.Situations))
					}
				})
			}
		})
	}
}

// explain renders a cell's counterexample with the commands that replay it.
func explain(c sim.Cell) string {
	var b strings.Builder
	for _, v := range c.Violations {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	fmt.Fprintf(&b, "  replay: go test -run 'TestCrashMatrix/%s/%s' .\n", c.Variant, c.Point.ID)
	if c.Counterexample != nil {
		fmt.Fprintf(&b, "  timeline: %s\n", c.Counterexample.Command("go run ./cmd/labrun"))
	}
	return b.String()
}

// TestCorrectVariantsSurviveEveryCrashPoint goes beyond the matrix rows: for
// every correct variant it crashes the standard workload at every crash
// point the variant reaches (not only the named rows), at every occurrence,
// and then once more at every point reached after that first crash (a
// double crash, including crashes during recovery). Every run must be OK
// and safe. go test ./... sweeps the reference; the long form every
// correct variant (grading at depth course sweeps each too).
func TestCorrectVariantsSurviveEveryCrashPoint(t *testing.T) {
	m := scenarios.Matrix()
	long := longtest.Long(t, "long_caught")
	for _, v := range scenarios.Variants() {
		if !v.Correct() || !long && v.Name != "outbox" {
			continue
		}
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			sw, err := m.Sweep(v)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range sw.Failures {
				t.Errorf("crashes %v: %s %v %v", f.Crashes, f.Outcome, f.Violations, f.Unsafe)
			}
			if sw.Runs < 100 {
				t.Errorf("only %d runs: the sweep tests nothing", sw.Runs)
			}
			t.Logf("%s: %d crash points without a crash, %d runs", v.Name, sw.Points, sw.Runs)
		})
	}
}

// BenchmarkMatrix is what `labrun matrix` runs, in two parts: the cells
// (every variant, every row, every occurrence, one relay and two) and the
// sweeps of the correct variants (every reached point, every occurrence,
// every double crash). Each reports its number of runs.
func BenchmarkMatrix(b *testing.B) {
	m := scenarios.Matrix()
	variants := scenarios.Variants()
	b.Run("cells", func(b *testing.B) {
		runs := 0
		for b.Loop() {
			cells, err := m.Run(variants)
			if err != nil {
				b.Fatal(err)
			}
			runs = 0
			for _, c := range cells {
				runs += c.Runs
			}
		}
		b.ReportMetric(float64(runs), "runs")
	})
	b.Run("sweeps", func(b *testing.B) {
		runs := 0
		for b.Loop() {
			runs = 0
			for _, v := range variants {
				if v.Correct() {
					sw, err := m.Sweep(v)
					if err != nil {
						b.Fatal(err)
					}
					runs += sw.Runs
				}
			}
		}
		b.ReportMetric(float64(runs), "runs")
	})
}

// TestARowThatMissesItsSituationIsCaught: a reorder row aimed at a message
// the workload never sends reorders nothing; its cell is OK, and only the
// missing situation says that the row tested nothing.
func TestARowThatMissesItsSituationIsCaught(t *testing.T) {
	m := scenarios.Matrix()
	p, err := scenarios.FindPoint("reorder")
	if err != nil {
		t.Fatal(err)
	}
	p.Faults = []sim.Fault{{Kind: sim.FaultReorder, Target: broker.Target{AggregateID: "o-9", Sequence: 1}}}
	cell, err := m.RunCell(variant.Outbox(), p)
	if err != nil {
		t.Fatal(err)
	}
	if cell.Outcome != variant.OK || !slices.Equal(cell.Missing(), []sim.Situation{sim.GapParked}) {
		t.Fatalf("outcome %s, missing %v; want OK with %s missing", cell.Outcome, cell.Missing(), sim.GapParked)
	}
}
