package verdict

import (
	"testing"

	"outboxlab/internal/longtest"
	"outboxlab/variant/varianttest"
)

// lateSlips are the broken frames that only exploration catches, with
// the depth that catches them: each is caught at some seeds only, or
// late (see CourseRuns).
var lateSlips = []struct {
	slip  string
	from  int
	depth Depth
}{
	{"relay-ignores-its-lease", 2, Course},          // first at 81 to 1943 schedules, at every seed
	{"relay-takes-timeouts-for-success", 2, Course}, // first at 17 to 714
	{"relay-ignores-its-lease", 3, Course},          // at 8 of 10 seeds, first at 81 to 3838
	{"relay-takes-timeouts-for-success", 3, Full},   // at 3 of 10 seeds: 1379 (seed 2), 3748, 700 (seed 10 once seed 8's schedule 30 changed)
	{"relay-returns-lost-races", 2, Full},           // at 2 of 10 seeds: 2100 (seed 5), 1955
}

// TestCourseExplorationCatchesTheLateSlips: the exploration of each depth
// catches the late slips it is chosen for (a minute: .ci/run's long step).
func TestCourseExplorationCatchesTheLateSlips(t *testing.T) {
	longtest.Only(t, "long_verdict", "no case: it explores up to 50,000 schedules")
	for _, c := range lateSlips {
		s, err := varianttest.Find(c.slip)
		if err != nil {
			t.Fatal(err)
		}
		v := s.Variant(c.from)
		// Each exploration is one goroutine: two at once on two cores.
		t.Run(v.Name+"/"+c.depth.String(), func(t *testing.T) {
			t.Parallel()
			g := newGrader(v, Options{Depth: c.depth})
			g.run(StageExplore)
			if len(g.out.Findings) == 0 {
				t.Errorf("%s at depth %s: exploration found nothing in %d schedules", v.Name, c.depth, g.out.Stages[0].Runs)
				return
			}
			f := g.out.Findings[0]
			t.Logf("%s at depth %s: %s at seed %d after %d schedules", v.Name, c.depth, f.Outcome, f.Run.ExploreSeed, f.Tried)
		})
	}
}
