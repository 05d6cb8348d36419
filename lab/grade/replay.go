package grade

import (
	"fmt"
	"strconv"
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
// or explore:RUNS:SEED), -lab.relays=N, -lab.poll.
func runOf(name string, relays int, poll bool) (verdict.Run, error) {
	if relays < 0 {
		return verdict.Run{}, fmt.Errorf("-lab.relays=%d: want 1 or more (or leave it out: the scenario's own)", relays)
	}
	if name == "" {
		return verdict.Run{}, fmt.Errorf("-lab.relays and -lab.poll say how -lab.replay plays its run: add -lab.replay=RUN, as a finding's replay command has it")
	}
	rest, ok := strings.CutPrefix(name, "explore:")
	if ok && (relays != 0 || poll) {
		return verdict.Run{}, fmt.Errorf("-lab.replay=%s: an exploration's schedule says its relays and how they run: leave out -lab.relays and -lab.poll", name)
	}
	if !ok {
		return verdict.Run{Scenario: name, Relays: relays, Poll: poll}, nil
	}
	runs, seed, found := strings.Cut(rest, ":")
	n, err1 := strconv.Atoi(runs)
	s, err2 := strconv.ParseUint(seed, 10, 64)
	if !found || err1 != nil || err2 != nil || n < 1 {
		return verdict.Run{}, fmt.Errorf("-lab.replay=%s: want explore:RUNS:SEED, e.g. explore:300:1", name)
	}
	return verdict.Run{Explore: true, ExploreRuns: n, ExploreSeed: s}, nil
}

// Replay plays one run of v as a grading found it, logs its timeline and
// returns an error if the run breaks what v declares: an outcome other
// than the declared one, a failed commit never handed back, a misstep.
func Replay(t testing.TB, v variant.Variant, run verdict.Run) error {
	t.Helper()
	if run.Explore {
		f, err := explore.Explore(v, run.ExploreRuns, run.ExploreSeed, explore.Options{})
		if err != nil || f == nil {
			return fmt.Errorf("-lab.replay=explore:%d:%d: %v: no counterexample in %d schedules", run.ExploreRuns, run.ExploreSeed, err, run.ExploreRuns)
		}
		cfg := f.Schedule.Config(v)
		cfg.Trace = true
		return logRun(t, cfg, variant.OK, strings.Join(f.Schedule.StoryLines(), "\n"))
	}
	sc, err := scenarios.FindScenario(run.Scenario)
	if err != nil {
		return fmt.Errorf("-lab.replay=%s: %w", run.Scenario, err)
	}
	cfg := sc.Configure(v, sc.Seed)
	if run.Relays > 0 {
		cfg.Relays = run.Relays
	}
	cfg.Poll = run.Poll
	l, _ := language() // Grade checked it
	return logRun(t, cfg, sc.Expected(v), sc.Summary.In(l))
}

// logRun runs cfg and logs its timeline, in the language -lab.lang
// names; what breaks the declaration want is an error.
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
		return fmt.Errorf("the planned crash %s@%d never fired: the run reaches %s %d time(s)", missed.Point, missed.Occurrence, missed.Point, res.Reached[missed.Point])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", title)
	for _, e := range res.Trace {
		fmt.Fprintln(&b, e.In(l))
	}
	fmt.Fprint(&b, lang.Textf(lang.Text{EN: "\nOutcome: %s (declared %s)\n", DE: "\nErgebnis: %s (erwartet %s)\n"}, res.Outcome, want).In(l))
	for _, v := range res.Violations {
		fmt.Fprintf(&b, "  %s\n", v.In(l))
	}
	unreported := res.CommitFailures > res.Situations[sim.FailureReported]
	if unreported {
		fmt.Fprintf(&b, "  %s\n", lang.Textf(lang.Text{
			EN: "a failed commit never came back as an error: the process went on as if it had committed (never reached %s)",
			DE: "ein gescheiterter Commit kam nie als Fehler zurück: der Prozess machte weiter, als wäre gespeichert (nie erreicht: %s)",
		}, sim.FailureReported).In(l))
	}
	for _, u := range res.Unhandled {
		fmt.Fprintf(&b, "  %s: %s\n", u, verdict.CauseUnhandled.Text().In(l))
	}
	for _, s := range append(res.Swallowed, res.Panics...) {
		fmt.Fprintf(&b, "  %s\n", s)
	}
	if d != nil {
		fmt.Fprintf(&b, "\n%s", d.Report(l, width))
	}
	t.Log(b.String())
	if d != nil {
		return fmt.Errorf("%s: the same run made twice parts at its event %d (%s, %s): this replay shows one of its ways, by chance", variant.NonDeterministic, d.Index+1, sim.FormatTime(d.At), d.Process)
	}
	return breach(res, want, unreported)
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
