package explore_test

import (
	"testing"

	"outboxlab/internal/longtest"
	"outboxlab/lab/explore"
	"outboxlab/scenarios"
)

// TestNewMistakesAreFoundAtTenSeeds: each mistake added with the
// interleaving scheduler, the stall, kill, slow-commit and retention
// faults is found by exploration within 1,000 schedules at each of ten
// seeds, and shrunk to at most four items. (TestTeeth checks every
// mistake at one seed; these need concurrency to fail, which a lucky
// seed could hide.)
func TestNewMistakesAreFoundAtTenSeeds(t *testing.T) {
	longtest.Only(t, "long_explore", "TestTeeth, every mistake at one seed")
	for _, name := range []string{"no-fencing", "recover-all", "claim-without-lock", "offset-by-id", "cleanup-by-age"} {
		v, err := scenarios.FindVariant(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= 10; seed++ {
				f, err := explore.Explore(v, 1000, seed, explore.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if f == nil {
					t.Errorf("seed %d: nothing found in 1000 schedules", seed)
					continue
				}
				if n := f.Schedule.Size(); n > 4 {
					t.Errorf("seed %d: shrunk to %d items, want at most 4: %v", seed, n, f.Schedule.Lines())
				}
				t.Logf("seed %2d: %s after %d schedule(s), %d items: %v", seed, f.Result.Outcome, f.Runs, f.Schedule.Size(), f.Schedule.Lines()[1:])
			}
		})
	}
}
