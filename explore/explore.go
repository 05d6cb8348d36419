package explore

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"outboxlab/check"
	"outboxlab/sim"
	"outboxlab/variant"
)

// randSource draws from a seeded random source.
type randSource struct{ r *rand.Rand }

func (s randSource) Intn(_ string, n int) int { return s.r.IntN(n) }

// Broken reports whether a run broke something: an invariant at the end, or
// a safety property during the run.
func Broken(res sim.Result) bool { return res.Outcome != check.OK || len(res.Unsafe) > 0 }

// Finding is a schedule that broke an invariant, shrunk.
type Finding struct {
	Variant string
	// Schedule is the shrunk counterexample; Original the one first found.
	Schedule, Original Schedule
	Result             sim.Result
	// Runs is how many schedules were tried until the first failure.
	Runs int
	// Seed is the exploration seed; with Runs it reproduces the finding.
	Seed uint64
}

// Replay returns the labrun command that finds it again.
func (f Finding) Replay() string {
	return fmt.Sprintf("go run ./cmd/labrun explore --variant %s --runs %d --seed %d", f.Variant, f.Runs, f.Seed)
}

// Explore runs up to runs random schedules for v, drawn from seed, and
// returns the first that keep accepts, shrunk; nil if none did. keep nil
// means Broken.
func Explore(v variant.Variant, runs int, seed uint64, keep func(sim.Result) bool) (*Finding, error) {
	return ExploreWithProgress(v, runs, seed, keep, nil)
}

// ExploreWithProgress is Explore, calling progress (if not nil) after every
// run with the number of runs done.
func ExploreWithProgress(v variant.Variant, runs int, seed uint64, keep func(sim.Result) bool, progress func(done int)) (*Finding, error) {
	if keep == nil {
		keep = Broken
	}
	src := randSource{rand.New(rand.NewPCG(seed, 0x6578706c6f7265))}
	for i := 1; i <= runs; i++ {
		if progress != nil {
			progress(i)
		}
		s := Generate(src)
		res, err := sim.Run(s.Config(v))
		if err != nil {
			return nil, fmt.Errorf("explore %s run %d: %w", v.Name, i, err)
		}
		if keep(res) {
			shrunk, sres, err := Shrink(v, s, keep)
			if err != nil {
				return nil, err
			}
			return &Finding{Variant: v.Name, Schedule: shrunk, Original: s, Result: sres, Runs: i, Seed: seed}, nil
		}
	}
	return nil, nil
}

// Shrink makes s as small as it can while keep still accepts its result:
// it drops crashes, faults and commands one at a time, drops relays, lowers
// crash occurrences, and moves commands earlier, until nothing more can go.
func Shrink(v variant.Variant, s Schedule, keep func(sim.Result) bool) (Schedule, sim.Result, error) {
	best, err := sim.Run(s.Config(v))
	if err != nil {
		return s, best, err
	}
	try := func(c Schedule) (bool, error) {
		res, err := sim.Run(c.Config(v))
		if err != nil || !keep(res) {
			return false, err
		}
		s, best = c, res
		return true, nil
	}
	for changed := true; changed; {
		changed = false
		for _, c := range candidates(s) {
			ok, err := try(c)
			if err != nil {
				return s, best, err
			}
			if ok {
				changed = true
				break // start over from the smaller schedule
			}
		}
	}
	return s, best, nil
}

// candidates returns the schedules one step smaller than s, most
// promising first.
func candidates(s Schedule) []Schedule {
	var out []Schedule
	with := func(change func(*Schedule)) {
		c := Schedule{Seed: s.Seed, Relays: s.Relays,
			Workload: slices.Clone(s.Workload), Faults: slices.Clone(s.Faults), Crashes: slices.Clone(s.Crashes)}
		change(&c)
		out = append(out, c)
	}
	for i := range s.Crashes {
		with(func(c *Schedule) { c.Crashes = slices.Delete(c.Crashes, i, i+1) })
	}
	for i := range s.Faults {
		with(func(c *Schedule) { c.Faults = slices.Delete(c.Faults, i, i+1) })
	}
	for i := len(s.Workload) - 1; i >= 0; i-- {
		with(func(c *Schedule) { c.Workload = slices.Delete(c.Workload, i, i+1) })
	}
	if s.Relays > 1 {
		with(func(c *Schedule) { c.Relays-- })
	}
	for i, cr := range s.Crashes {
		if cr.Occurrence > 1 {
			with(func(c *Schedule) { c.Crashes[i].Occurrence-- })
		}
	}
	for i, f := range s.Faults {
		if f.Target.Sequence > 1 {
			with(func(c *Schedule) { c.Faults[i].Target.Sequence-- })
		}
		if f.Kind != sim.FaultOutage {
			continue
		}
		if f.From > 0 {
			with(func(c *Schedule) { c.Faults[i].From = 0 })
		}
		if f.For/2 > 0 {
			with(func(c *Schedule) { c.Faults[i].For /= 2 })
		}
	}
	for i := range s.Workload {
		prev := s.Workload[max(i-1, 0)].At
		if i == 0 {
			prev = 0
		}
		if s.Workload[i].At > prev {
			with(func(c *Schedule) {
				d := c.Workload[i].At - prev
				for j := i; j < len(c.Workload); j++ {
					c.Workload[j].At -= d
				}
			})
		}
	}
	if s.Seed != 0 {
		with(func(c *Schedule) { c.Seed = 0 })
	}
	return out
}
