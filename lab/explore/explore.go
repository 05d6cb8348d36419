package explore

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"outboxlab/internal/shard"
	"outboxlab/sim"
	"outboxlab/variant"
)

// randSource draws from a seeded random source.
type randSource struct{ r *rand.Rand }

func (s randSource) Intn(_ string, n int) int { return s.r.IntN(n) }

// Broken reports whether a run broke something: an invariant at the end, a
// safety property during the run, or a process misstepped (an error it
// should have handled, a crash it went on from, a panic: sim.Missteps).
func Broken(res sim.Result) bool {
	return res.Outcome != variant.OK || len(res.Unsafe) > 0 || res.Missteps.Any()
}

// BrokenSchedule is what an exploration finds: a schedule that broke
// something (Options.Keep, Broken by default), shrunk.
type BrokenSchedule struct {
	Variant string
	// Schedule is the shrunk counterexample; Original the schedule it was
	// shrunk from.
	Schedule, Original Schedule
	Result             sim.Result
	// Runs is how many schedules were tried; Found how many of them broke
	// something (up to Shrunk, then the search stops).
	Runs, Found int
	// Seed is the exploration seed; with Runs it reproduces the finding.
	Seed uint64
}

// Run is the run that finds it again (its Command is the labrun command
// that does): the exploration's runs and seed, with the shrunk schedule
// and its kinds of fault for the reader.
func (f BrokenSchedule) Run() sim.RunID {
	run := sim.RunID{Variant: f.Variant, Explore: true, ExploreRuns: f.Runs, ExploreSeed: f.Seed, Schedule: f.Schedule.StoryLines()}
	for _, flt := range f.Schedule.Faults {
		run.Faults = append(run.Faults, flt.Kind)
	}
	return run
}

// Options tune an exploration.
type Options struct {
	// Keep says which results count as a finding; nil means Broken.
	Keep func(sim.Result) bool
	// Progress, if set, is called with the number of schedules tried.
	Progress func(done int)
	// Observe, if set, is called with the result of every schedule tried,
	// in the order drawn (up to and including a finding).
	Observe func(sim.Result)
	// Workers is how many schedules run at once: 0 for every core, 1 for
	// one after the other. The finding is the same either way: the first
	// failing schedule in the order drawn.
	Workers int
}

// batch is how many schedules are drawn and run together.
const batch = 64

// Shrunk is how many failing schedules an exploration shrinks before it
// stops: shrinking is greedy and may stop in a corner, and another
// schedule that broke the same way often shrinks further.
const Shrunk = 5

// Explore runs up to runs random schedules for v, drawn from seed, until
// Shrunk of them broke something (see Options.Keep), shrinks each and
// returns the smallest (the first of equals); nil if none broke.
func Explore(v variant.Variant, runs int, seed uint64, opts Options) (*BrokenSchedule, error) {
	keep := keepOf(opts)
	f := finder{v: v, seed: seed, keep: keep}
	err := draw(v, runs, seed, opts, func(int) bool { return true }, func(number int, s Schedule, res sim.Result) (bool, error) {
		if !keep(res) {
			return false, nil
		}
		if err := f.add(s, number); err != nil {
			return true, err
		}
		return f.best.Found == Shrunk, nil
	})
	if err != nil {
		return nil, err
	}
	return f.finish(runs), nil
}

func keepOf(opts Options) func(sim.Result) bool {
	if opts.Keep == nil {
		return Broken
	}
	return opts.Keep
}

// draw draws the schedules 1 to runs from seed in order, runs those
// include takes (a batch at a time on opts.Workers) and hands each result
// to each in the order drawn, until each says stop.
func draw(v variant.Variant, runs int, seed uint64, opts Options, include func(number int) bool, each func(number int, s Schedule, res sim.Result) (stop bool, err error)) error {
	src := newSource(seed)
	tried := 0
	for n := 0; n < runs; {
		// Draw the next batch in order, run it on all cores, and take the
		// results in drawing order: the same as one after the other.
		var schedules []Schedule
		var numbers []int
		for n < runs && len(schedules) < batch {
			s := drawn(src) // completed by the workers
			n++
			if include(n) {
				schedules, numbers = append(schedules, s), append(numbers, n)
			}
		}
		results := make([]sim.Result, len(schedules))
		err := sim.Parallel(len(schedules), opts.Workers, func(i int) error {
			schedules[i].complete()
			res, err := sim.Run(schedules[i].Config(v))
			results[i] = res
			if err != nil {
				return &ScheduleError{Variant: v.Name, Number: numbers[i], Schedule: schedules[i], Err: err}
			}
			return nil
		})
		if err != nil {
			return err
		}
		for i, res := range results {
			if opts.Observe != nil {
				opts.Observe(res)
			}
			tried++
			if opts.Progress != nil {
				opts.Progress(tried)
			}
			stop, err := each(numbers[i], schedules[i], res)
			if err != nil || stop {
				return err
			}
		}
	}
	return nil
}

// ScheduleError is a schedule that could not be run: the variant failed
// to build a process, or its code panicked outside its activities (in
// NextWake, in an operator's command), or the lab refused the run. It
// says which schedule and what failed in it, so that the exploration's
// replay shows it again.
type ScheduleError struct {
	Variant string
	// Number is the schedule's number in drawing order, from 1: the
	// exploration of Number schedules from its seed ends in it. 0 for
	// a schedule shrinking made of the schedule numbered From.
	Number, From int
	Schedule     Schedule
	Err          error
}

// Runs returns how many schedules an exploration from the same seed
// draws to meet the error again: Number, or, for a schedule shrinking
// made, From (whose shrinking makes it).
func (e *ScheduleError) Runs() int { return max(e.Number, e.From) }

func (e *ScheduleError) Error() string {
	which := fmt.Sprintf("schedule %d", e.Number)
	if e.Number == 0 {
		which = fmt.Sprintf("a schedule shrunk from schedule %d", e.From)
	}
	return fmt.Sprintf("explore %s: %s could not be run (%s): %v", e.Variant, which, strings.Join(e.Schedule.Lines(), "; "), e.Err)
}

func (e *ScheduleError) Unwrap() error { return e.Err }

// finder keeps the smallest of the broken schedules shrunk so far.
type finder struct {
	v    variant.Variant
	seed uint64
	keep func(sim.Result) bool
	best *BrokenSchedule
}

// add shrinks s, the schedule numbered number (from 1, in drawing order),
// which broke.
func (f *finder) add(s Schedule, number int) error {
	shrunk, sres, err := Shrink(f.v, s, f.keep)
	var se *ScheduleError
	if errors.As(err, &se) && se.Number == 0 {
		se.From = number
	}
	if err != nil {
		return err
	}
	found := 1
	if f.best != nil {
		found = f.best.Found + 1
	}
	if f.best == nil || shrunk.Size() < f.best.Schedule.Size() {
		f.best = &BrokenSchedule{Variant: f.v.Name, Schedule: shrunk, Original: s, Result: sres, Seed: f.seed}
	}
	f.best.Found, f.best.Runs = found, number
	return nil
}

// finish returns the finding of an exploration of runs schedules: one
// that stopped short of Shrunk broken ones tried them all.
func (f *finder) finish(runs int) *BrokenSchedule {
	if f.best != nil && f.best.Found < Shrunk {
		f.best.Runs = runs
	}
	return f.best
}

// Part is what one shard of an exploration found: see ExploreShard.
type Part struct {
	// Tried is how many of the shard's schedules ran.
	Tried int
	// Broken are the numbers (from 1, in drawing order) of the shard's
	// first broken schedules, at most Shrunk; the shard stops at the last.
	Broken []int
	// Reached are, for each situation, the numbers of the schedules tried
	// that reached it, in order.
	Reached map[sim.Situation][]int
}

// ExploreShard runs one shard of Explore's schedules: those it owns
// (shard.Shard.Owns: schedule number n, from 1, is item n-1); it shrinks
// nothing and stops after Shrunk of them broke. Merge the parts of all
// shards with Merge.
func ExploreShard(v variant.Variant, runs int, seed uint64, sh shard.Shard, opts Options) (Part, error) {
	keep := keepOf(opts)
	part := Part{Reached: map[sim.Situation][]int{}}
	err := draw(v, runs, seed, opts, func(n int) bool { return sh.Owns(n - 1) }, func(number int, _ Schedule, res sim.Result) (bool, error) {
		part.Tried++
		for s, n := range res.Situations {
			if n > 0 {
				part.Reached[s] = append(part.Reached[s], number)
			}
		}
		if !keep(res) {
			return false, nil
		}
		part.Broken = append(part.Broken, number)
		return len(part.Broken) == Shrunk, nil
	})
	return part, err
}

// Merge returns what Explore returns for the same arguments from the
// parts of all its shards, and how many schedules reached each situation
// (up to the last one Explore tried): it takes the first Shrunk broken
// schedules of all the parts, draws them again from seed and shrinks
// them as Explore does.
func Merge(v variant.Variant, runs int, seed uint64, parts []Part, opts Options) (*BrokenSchedule, map[sim.Situation]int, error) {
	var broken []int
	for _, p := range parts {
		broken = append(broken, p.Broken...)
	}
	slices.Sort(broken)
	last := runs // the last schedule Explore tries
	if len(broken) >= Shrunk {
		broken = broken[:Shrunk]
		last = broken[Shrunk-1]
	}
	reached := map[sim.Situation]int{}
	for _, p := range parts {
		for s, numbers := range p.Reached {
			for _, n := range numbers {
				if n <= last {
					reached[s]++
				}
			}
		}
	}
	f := finder{v: v, seed: seed, keep: keepOf(opts)}
	if len(broken) == 0 {
		return nil, reached, nil
	}
	src := newSource(seed)
	next := 0
	for n := 1; n <= broken[len(broken)-1]; n++ {
		s := Generate(src)
		if n != broken[next] {
			continue
		}
		if err := f.add(s, n); err != nil {
			return nil, nil, err
		}
		next++
	}
	return f.finish(runs), reached, nil
}

// Shrink makes s as small as it can while keep still accepts its result:
// it drops crashes, faults and commands one at a time, drops relays, lowers
// crash occurrences, and moves commands earlier, until nothing more can go.
func Shrink(v variant.Variant, s Schedule, keep func(sim.Result) bool) (Schedule, sim.Result, error) {
	best, err := sim.Run(s.Config(v))
	if err != nil {
		return s, best, &ScheduleError{Variant: v.Name, Schedule: s, Err: err}
	}
	try := func(c Schedule) (bool, error) {
		if c.Config(v).Validate() != nil {
			return false, nil // not a schedule (a wrong-currency fault left on a place)
		}
		res, err := sim.Run(c.Config(v))
		if err != nil {
			return false, &ScheduleError{Variant: v.Name, Schedule: c, Err: err}
		}
		if !keep(res) {
			return false, nil
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
		c := Schedule{Seed: s.Seed, Relays: s.Relays, Services: s.Services,
			Workload: slices.Clone(s.Workload), Faults: slices.Clone(s.Faults), Crashes: slices.Clone(s.Crashes),
			Operations: slices.Clone(s.Operations)}
		change(&c)
		out = append(out, c)
	}
	for i := range s.Crashes {
		with(func(c *Schedule) { c.Crashes = slices.Delete(c.Crashes, i, i+1) })
	}
	for i := range s.Faults {
		with(func(c *Schedule) { c.Faults = slices.Delete(c.Faults, i, i+1) })
	}
	for i, o := range s.Operations {
		switch {
		case o.Kind != sim.OpFix:
			with(func(c *Schedule) { c.Operations = slices.Delete(c.Operations, i, i+1) })
		case o.Outage > 0:
			with(func(c *Schedule) { c.Operations[i].Outage = 0 })
		}
	}
	for i := len(s.Workload) - 1; i >= 0; i-- {
		with(func(c *Schedule) { c.Workload = slices.Delete(c.Workload, i, i+1) })
	}
	if s.Relays > 1 {
		with(func(c *Schedule) { c.Relays-- })
	}
	if s.Services > 1 {
		with(func(c *Schedule) { c.Services-- })
	}
	smallerCrashes(s, with)
	smallerFaults(s, with)
	earlierCommands(s, with)
	// An interleaving bug may need a step and another interleaving at
	// once: every step again under a few other seeds. (Every step makes
	// the schedule smaller by some measure other than the seed, so that
	// shrinking ends.)
	steps := len(out)
	if s.Seed != 0 {
		with(func(c *Schedule) { c.Seed = 0 })
	}
	for seed := range uint64(reseeds) {
		for _, c := range out[:steps] {
			if seed != c.Seed {
				c.Seed = seed
				out = append(out, c)
			}
		}
	}
	return out
}

// smallerCrashes adds the schedules with a crash at an earlier occurrence
// or an earlier point of its process.
func smallerCrashes(s Schedule, with func(func(*Schedule))) {
	for i, cr := range s.Crashes {
		if cr.Occurrence > 1 {
			with(func(c *Schedule) { c.Crashes[i].Occurrence-- })
		}
	}
	for i, cr := range s.Crashes {
		// An earlier point of the same process (CrashPoints is in the
		// order of a message's life) often needs fewer other items to
		// fail: a crash after the claim needs no fault to leave a claim
		// behind. Only earlier points, so that shrinking ends.
		process, _, _ := strings.Cut(cr.Point, ".")
		for _, p := range CrashPoints[:slices.Index(CrashPoints, cr.Point)+1] {
			if p != cr.Point && strings.HasPrefix(p, process+".") {
				with(func(c *Schedule) { c.Crashes[i] = sim.Crash{Point: p, Occurrence: 1} })
			}
		}
	}
}

// smallerFaults adds the schedules with a fault aimed at an earlier
// event, at a lower-numbered relay, sooner or shorter.
func smallerFaults(s Schedule, with func(func(*Schedule))) {
	for i, f := range s.Faults {
		if f.Target.Sequence > 1 {
			with(func(c *Schedule) { c.Faults[i].Target.Sequence-- })
		}
		var n int
		if _, err := fmt.Sscanf(f.Process, "relay-%d", &n); err == nil {
			// A lower-numbered relay, so that the relays can go next.
			for lower := 1; lower < n; lower++ {
				with(func(c *Schedule) { c.Faults[i].Process = fmt.Sprintf("relay-%d", lower) })
			}
		}
		if f.Kind == sim.FaultKill && f.From > 0 {
			with(func(c *Schedule) { c.Faults[i].From = 0 })
			with(func(c *Schedule) { c.Faults[i].From = f.From / 2 / time.Second * time.Second })
		}
		if f.Kind != sim.FaultOutage {
			continue
		}
		if f.From > 0 {
			with(func(c *Schedule) { c.Faults[i].From = 0 })
		}
		if f.For/2 >= time.Second { // whole-second outages read better in a counterexample
			with(func(c *Schedule) { c.Faults[i].For = f.For / 2 / time.Second * time.Second })
		}
	}
}

// earlierCommands adds the schedules with a command moved back to the one
// before it, the later ones with it.
func earlierCommands(s Schedule, with func(func(*Schedule))) {
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
}

// reseeds is how many seeds shrinking tries with each step.
const reseeds = 8

// newSource is the random source an exploration of seed draws its
// schedules from: Explore, ExploreShard and Merge draw the same schedules
// only because they share it.
func newSource(seed uint64) randSource {
	return randSource{rand.New(rand.NewPCG(seed, 0x6578706c6f7265))}
}
