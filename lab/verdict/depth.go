package verdict

import (
	"fmt"
	"strings"
)

// Depth says how hard a variant is graded.
type Depth int

// The depths, from the quickest.
const (
	// Quick is the crash matrix.
	Quick Depth = iota
	// Course is the matrix, the rows that contradict what code may
	// assume (scenarios.Assumptions), the double-crash sweep, the failure
	// sweep, the matrix polled as Relay.Run polls, and exploration at
	// several seeds: what a course grades with.
	Course
	// Full is Course with many more random schedules and seeds.
	Full
)

// Depths are the depths' names, as --depth and -lab.depth take them.
var Depths = []string{"quick", "course", "full"}

// String returns the depth's name.
func (d Depth) String() string {
	if d < 0 || int(d) >= len(Depths) {
		return fmt.Sprintf("Depth(%d)", int(d))
	}
	return Depths[d]
}

// ParseDepth turns a name into a Depth; an unknown name is an error that
// names the valid ones.
func ParseDepth(name string) (Depth, error) {
	for i, n := range Depths {
		if n == name {
			return Depth(i), nil
		}
	}
	return Quick, fmt.Errorf("%q is not a depth (valid: %s)", name, strings.Join(Depths, ", "))
}

// plan is what a depth runs beyond the matrix, for a variant that claims
// to be correct.
type plan struct {
	// assumptions: the rows of scenarios.Assumptions; sweeps: the
	// double-crash sweep and the failure sweep; polled: the matrix polled
	// as Relay.Run polls.
	assumptions, sweeps, polled bool
	// runs random schedules at each of seeds seeds (1, 2, ...), until a
	// seed finds something.
	runs, seeds int
	// replays: a sample of the matrix's runs and first failed commits
	// made first and last, and every finding's run made twice (see
	// replay.go).
	replays bool
}

// The exploration of Course and Full, chosen by measuring the broken
// frames of package varianttest that only exploration catches (a relay
// whose slip acts from its second or third occasion on: it ignores its
// lease, it takes a publish timeout for a success, it returns a lost race
// as an error). 300 schedules at one seed, what graders ran before,
// caught one of five; Course catches three, each at one seed at least
// (TestCourseExplorationCatchesTheLateSlips); Full catches all five.
// (Course caught four until exploration drew failed commits in bursts
// and the broker down from the start: the schedule that showed the
// fourth at seed 8 changed.) A variant that passes pays the whole of it:
// Course explores 8,000 schedules, Full 50,000.
const (
	CourseRuns, CourseSeeds = 1000, 8
	FullRuns, FullSeeds     = 5000, 10
)

func (d Depth) plan() plan {
	switch d {
	case Course:
		return plan{assumptions: true, sweeps: true, polled: true, runs: CourseRuns, seeds: CourseSeeds, replays: true}
	case Full:
		return plan{assumptions: true, sweeps: true, polled: true, runs: FullRuns, seeds: FullSeeds, replays: true}
	}
	return plan{}
}
