package explore_test

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"outboxlab/lab/explore"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// rapidSource draws through rapid, so that rapid shrinks what it finds.
type rapidSource struct{ t *rapid.T }

func (s rapidSource) Intn(name string, n int) int { return rapid.IntRange(0, n-1).Draw(s.t, name) }

// TestCorrectVariantsHoldEveryInvariant is the regression suite: random
// workloads, broker faults, crashes anywhere (several, during recovery too),
// one to three relays and random interleavings. For the reference and the
// correct alternatives every invariant holds after quiesce, and every
// safety property during the run. A failure prints the shrunk schedule and
// the -rapid.seed that replays it; rapid keeps it under testdata/rapid/ and
// runs it first from then on.
func TestCorrectVariantsHoldEveryInvariant(t *testing.T) {
	for _, v := range scenarios.Variants() {
		if !v.Correct() {
			continue
		}
		t.Run(v.Name, rapid.MakeCheck(func(t *rapid.T) {
			s := explore.Generate(rapidSource{t})
			res, err := sim.Run(s.Config(v))
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != variant.OK || len(res.Unsafe) > 0 {
				t.Fatalf("%s broke on this schedule:\n  %s\nviolations: %v\nunsafe: %v",
					v.Name, strings.Join(s.Lines(), "\n  "), res.Violations, res.Unsafe)
			}
		}))
	}
}

// TestGeneratedSchedulesAreValid: every schedule the generator draws is one
// the simulator accepts, with commands in time order.
func TestGeneratedSchedulesAreValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := explore.Generate(rapidSource{t})
		if s.Relays < 1 || s.Relays > 3 || len(s.Workload) == 0 {
			t.Fatalf("schedule out of range: %v", s.Lines())
		}
		for i := 1; i < len(s.Workload); i++ {
			if s.Workload[i].At < s.Workload[i-1].At {
				t.Fatalf("commands out of order: %v", s.Lines())
			}
		}
		if err := s.Config(scenarios.Variants()[0]).Validate(); err != nil {
			t.Fatalf("invalid schedule %v: %v", s.Lines(), err)
		}
	})
}
