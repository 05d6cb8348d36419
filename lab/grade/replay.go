package grade

import (
	"fmt"
	"strings"
	"testing"

	"outboxlab/lab/explore"
	"outboxlab/lab/verdict"
	"outboxlab/lang"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// runOf is the run the replay flags name: -lab.replay=NAME (a scenario,
// or explore:RUNS:SEED, as scenarios.ParseRun reads it), -lab.relays=N,
// -lab.poll.
func runOf(name string, relays int, poll bool) (sim.RunID, error) {
	if relays < 0 {
		return sim.RunID{}, fmt.Errorf("-lab.relays=%d: want 1 or more (or leave it out: the scenario's own)", relays)
	}
	if name == "" {
		return sim.RunID{}, fmt.Errorf("-lab.relays and -lab.poll say how -lab.replay plays its run: add -lab.replay=RUN, as a finding's replay command has it")
	}
	run, err := scenarios.ParseRun(name)
	if err != nil {
		return sim.RunID{}, fmt.Errorf("-lab.replay=%s: %w", name, err)
	}
	if run.Explore && (relays != 0 || poll) {
		return sim.RunID{}, fmt.Errorf("-lab.replay=%s: an exploration's schedule says its relays and how they run: leave out -lab.relays and -lab.poll", name)
	}
	run.Relays, run.Poll = relays, poll
	return run, nil
}

// Replay plays one run of v as a grading found it, logs its timeline and
// returns an error if the run breaks what v declares: an outcome other
// than the declared one, a failed commit never handed back, a misstep.
// The run plays at its scenario's own seed (the replay flags name none).
func Replay(t testing.TB, v variant.Variant, run sim.RunID) error {
	t.Helper()
	if run.Explore {
		f, err := explore.Explore(v, run.ExploreRuns, run.ExploreSeed, explore.Options{})
		if err != nil || f == nil {
			return fmt.Errorf("-lab.replay=%s: %v: no counterexample in %d schedules", run.Name(), err, run.ExploreRuns)
		}
		cfg := f.Schedule.Config(v)
		cfg.Trace = true
		return logRun(t, cfg, variant.OK, strings.Join(f.Schedule.StoryLines(), "\n"))
	}
	sc, err := scenarios.Find(run)
	if err != nil {
		return fmt.Errorf("-lab.replay=%s: %w", run.Name(), err)
	}
	run.Seed = sc.Seed
	cfg := sc.Config(v, run)
	l, _ := language() // Grade checked it
	return logRun(t, cfg, sc.Expected(v), sc.Summary.In(l))
}

// logRun runs cfg and logs its transcript (verdict.Transcript, as
// labrun scenario writes it), in the language -lab.lang names; what
// breaks the declaration want is an error.
func logRun(t testing.TB, cfg sim.Config, want variant.Outcome, title string) error {
	t.Helper()
	l, _ := language() // Grade checked it
	// The run is made twice, as labrun makes a run it replays: a variant
	// whose runs part from one seed (the wall clock, a map's order, state
	// kept in a package variable from the grading before) would pass or
	// fail here by chance, and its replay would show one of them as the
	// run.
	res, d, err := sim.RunTwice(cfg)
	if err != nil {
		return err
	}
	if missed, ok := res.Missed(cfg); ok {
		return fmt.Errorf("the planned crash %s@%d never fired: the run reaches %s %d time(s)%s", missed.Point, missed.Occurrence, missed.Point, res.Reached[missed.Point], res.NeverReached(missed.Point).In(lang.English))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", title)
	verdict.Transcript{Result: res, Expected: want, Divergence: d}.Write(&b, l)
	t.Log(b.String())
	if d != nil {
		return fmt.Errorf("%s: the same run made twice parts at its event %d (%s, %s): this replay shows one of its ways, by chance", variant.NonDeterministic, d.Index+1, sim.FormatTime(d.At), d.Process)
	}
	return breach(res, want, res.CommitFailures > res.Situations[sim.FailureReported])
}

// breach is what in res breaks the declaration want, as an error (in
// English: a test's failure names it once more after the timeline).
func breach(res sim.Result, want variant.Outcome, unreported bool) error {
	switch {
	case res.Outcome != want:
		return fmt.Errorf("%s, declared %s", res.Outcome, want)
	case unreported:
		return fmt.Errorf("%s, declared %s, but a failed commit never came back as an error (never reached %s)", res.Outcome, want, sim.FailureReported)
	case len(res.Unhandled) > 0:
		return fmt.Errorf("%s, declared %s, but %s: an error the process should have handled itself", res.Outcome, want, res.Unhandled[0])
	case len(res.Swallowed) > 0:
		return fmt.Errorf("%s, declared %s, but %s", res.Outcome, want, res.Swallowed[0])
	case len(res.Panics) > 0:
		return fmt.Errorf("%s, declared %s, but %s", res.Outcome, want, res.Panics[0])
	}
	return nil
}
