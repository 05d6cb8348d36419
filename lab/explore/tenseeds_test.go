package explore_test

import (
	"testing"

	"outboxlab/internal/longtest"
	"outboxlab/internal/shard"
	"outboxlab/lab/explore"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
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

// TestEveryMistakeIsFoundWithin3000Schedules: every mistake the lab ships
// (the matrix's and the extras') breaks in at least one of the first
// 3,000 schedules at each of five seeds, those that once missed among
// them; and cron-relay's declared STORM is among them at seeds 1, 5 and
// 108315, where it was missed before exploration drew outages from the
// start of a run (two messages waiting through a few seconds of it show
// it).
func TestEveryMistakeIsFoundWithin3000Schedules(t *testing.T) {
	longtest.Only(t, "long_explore", "TestTeeth, three mistakes at one seed")
	seeds := []uint64{1, 2, 5, 108315, 108332}
	for _, v := range append(scenarios.Variants(), scenarios.Extras()...) {
		if v.Correct() {
			continue
		}
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			for _, seed := range seeds {
				part, err := explore.ExploreShard(v, 3000, seed, shard.Shard{I: 1, N: 1}, explore.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if len(part.Broken) == 0 {
					t.Errorf("seed %d: nothing found in 3000 schedules", seed)
				}
			}
		})
	}
	t.Run("cron-relay STORM", func(t *testing.T) {
		t.Parallel()
		v, err := scenarios.FindVariant("cron-relay")
		if err != nil {
			t.Fatal(err)
		}
		storm := func(res sim.Result) bool { return res.Outcome == variant.Storm }
		for _, seed := range []uint64{1, 5, 108315} {
			part, err := explore.ExploreShard(v, 3000, seed, shard.Shard{I: 1, N: 1}, explore.Options{Keep: storm})
			if err != nil {
				t.Fatal(err)
			}
			if len(part.Broken) == 0 {
				t.Errorf("seed %d: no STORM in 3000 schedules", seed)
			} else {
				t.Logf("seed %d: STORM first in schedule %d", seed, part.Broken[0])
			}
		}
	})
}
