package labtest

import (
	"strings"
	"testing"

	"outboxlab/lab/explore"
	"outboxlab/lab/verdict"
	"outboxlab/scenarios"
	"outboxlab/sim/check"
	"outboxlab/variant"
)

// OKEverywhere fails t at every row of the matrix where v's cell does not
// match its declaration (OK, or n/a).
func OKEverywhere(t *testing.T, v variant.Variant) {
	t.Helper()
	m := scenarios.Matrix()
	for _, p := range m.Points {
		cell, err := m.RunCell(v, p)
		if err != nil {
			t.Fatal(err)
		}
		if !cell.Matches() {
			t.Errorf("%s at %s: %s, want OK: %v", v.Name, p.ID, cell.Outcome, cell.Violations)
		}
	}
}

// Cell runs v at the matrix row point and returns the cell's outcome and
// its violations, one a line.
func Cell(t *testing.T, v variant.Variant, point string) (variant.Outcome, string) {
	t.Helper()
	p, err := scenarios.FindPoint(point)
	if err != nil {
		t.Fatal(err)
	}
	cell, err := scenarios.Matrix().RunCell(v, p)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, v := range cell.Violations {
		lines = append(lines, v.String())
	}
	return cell.Outcome, strings.Join(lines, "\n")
}

// CaughtByExploration wants v caught by exploration with outcome want
// and a violation that says detail: at the first of the course's seeds,
// within the course's schedules; in its long form (.ci/run's long_explore
// step, a few seconds more: long) graded at depth course, where the
// matrix, the sweeps and the polled matrix pass it and exploration alone
// catches it.
func CaughtByExploration(t *testing.T, v variant.Variant, want variant.Outcome, detail string, long bool) {
	t.Helper()
	if !long {
		f, err := explore.Explore(v, verdict.CourseRuns, 1, explore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if f == nil {
			t.Fatalf("%s: exploration found nothing in %d schedules at seed 1", v.Name, verdict.CourseRuns)
		}
		if f.Result.Outcome != want || !strings.Contains(strings.Join(violations(f.Result.Violations), "\n"), detail) {
			t.Fatalf("%s: %s %v, want %s with %q (%s)", v.Name, f.Result.Outcome, violations(f.Result.Violations), want, detail, f.Run().Command("labrun"))
		}
		return
	}
	vd, err := verdict.Grade(v, verdict.Options{Depth: verdict.Course, Stop: verdict.StopAfterRedStage})
	if err != nil {
		t.Fatal(err)
	}
	if len(vd.Findings) == 0 {
		t.Fatalf("%s passed at depth course", v.Name)
	}
	f := vd.Findings[0]
	if f.Stage != verdict.StageExplore || f.Outcome != want || !strings.Contains(f.Detail.EN, detail) {
		t.Fatalf("%s: %s %s %q, want exploration's %s with %q", v.Name, f.Stage, f.Outcome, f.Detail.EN, want, detail)
	}
	t.Logf("%s: %s after %d schedule(s) (%s): %s", v.Name, f.Outcome, f.Tried, f.Run.Command("labrun"), f.Detail.EN)
}

// violations are vs in words.
func violations(vs []check.Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.String())
	}
	return out
}
