package verdict

import (
	"slices"

	"outboxlab/lang"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// Determinism is checked, not assumed. A grading at depth course makes a
// sample of the matrix's runs before anything else and again after its
// last stage, and every finding's run twice, and compares the runs event
// by event (sim.Diverge): a variant whose code reads the wall clock,
// ranges over a map, starts a goroutine, draws from the global
// math/rand or keeps state between runs in a package variable makes
// runs that part, and each is a NONDETERMINISTIC finding of the replay
// stage. A sample run made first and last sees a package variable
// before and after the whole grading wrote to it. The sample holds matrix
// rows and first failures of commits (replayFailureSample).

// replaySample are the matrix rows whose runs a grading makes first and
// last: a crash, refused and timed-out sends that write backoffs, a
// backlog that claims a dozen messages in one batch, a stall and a
// takeover by a second relay, a refused message and its dead letter, a
// delivery billing cannot process, a message delivered twice.
var replaySample = []string{
	"relay.after-send", "broker-outage", "outage-backlog", "publish-timeout-stored",
	"stall", "relay-restart", "rejected", "poison", "duplicate-delivery",
}

// replayFailureSample are the commits whose first failure a grading
// makes first and last too: what a variant does after a failed commit
// (a pause, a retry, a reconnect) is code no matrix row runs, and a
// relay that waits out a failed claim by the wall clock parted only
// there.
var replayFailureSample = []string{"service.commit", "relay.claim", "relay.mark", "consumer.commit"}

// maxReplays bounds the findings' runs a grading makes twice: a variant
// that fails hundreds of sweep runs is shown nondeterministic, if it is,
// by the first of them.
const maxReplays = 64

// sampled is one run of the sample, made before the matrix.
type sampled struct {
	finding Finding // as a NONDETERMINISTIC finding would be
	cfg     sim.Config
	first   sim.Result
	err     error
}

// sampleFirst makes the sample's runs before any other run of the
// grading.
func (g *grader) sampleFirst() []sampled {
	var out []sampled
	for _, p := range g.m.Points {
		if !slices.Contains(replaySample, p.ID) {
			continue
		}
		run := sim.RunID{Variant: g.v.Name, Row: p.ID, Seed: g.m.Seed}
		if p.Kind == sim.KindCrash {
			run.Row, run.Crashes = "", []sim.Crash{{Point: p.ID, Occurrence: 1}}
		}
		cfg, ok := g.configOf(run)
		if !ok || cfg.Relays < p.MinRelays {
			continue
		}
		cfg.Trace = true
		s := sampled{finding: Finding{Stage: StageReplay, Cause: CauseOutcome, Outcome: variant.NonDeterministic,
			Expected: p.Expected(g.v), Point: p.ID, Run: run}, cfg: cfg}
		s.first, s.err = sim.Run(cfg)
		out = append(out, s)
	}
	for _, b := range replayFailureSample {
		failure := sim.Fault{Kind: sim.FaultCommitFailure, Point: b, Occurrence: 1}
		run := sim.RunID{Variant: g.v.Name, Failure: &failure, Seed: g.m.Seed, Schedule: []string{"fault " + failure.String()}}
		cfg, ok := g.configOf(run)
		if !ok {
			continue
		}
		cfg.Trace = true
		s := sampled{finding: Finding{Stage: StageReplay, Cause: CauseOutcome, Outcome: variant.NonDeterministic,
			Expected: variant.OK, Run: run}, cfg: cfg}
		s.first, s.err = sim.Run(cfg)
		out = append(out, s)
	}
	return out
}

// replay is the replay stage: the sample's runs made again, and every
// finding's run (up to maxReplays, each once) made twice.
func (g *grader) replay(sample []sampled) {
	result := StageResult{Stage: StageReplay}
	defer func() { g.out.Stages = append(g.out.Stages, result) }()
	var found []Finding
	for _, s := range sample {
		if s.err != nil {
			continue // the run cannot be made: the matrix says so
		}
		result.Runs += 2
		if d := sim.Again(s.cfg, s.first); d != nil {
			found = append(found, diverged(s.finding, d))
		}
	}
	seen := map[string]bool{}
	for _, f := range g.out.Findings {
		key := f.Run.Command("labrun")
		if seen[key] || len(seen) == maxReplays || f.Stage == StageReplay {
			continue
		}
		seen[key] = true
		cfg, ok := g.configOf(f.Run)
		if !ok {
			continue
		}
		_, d, err := sim.RunTwice(cfg)
		result.Runs += 2
		if err != nil || d == nil {
			continue
		}
		nd := Finding{Stage: StageReplay, Cause: CauseOutcome, Outcome: variant.NonDeterministic, Expected: f.Expected, Point: f.Point, Run: f.Run}
		found = append(found, diverged(nd, d))
	}
	result.Failed = len(found)
	g.add(found...)
}

// diverged is f with what d says: where the runs part, both excerpts.
func diverged(f Finding, d *sim.Divergence) Finding {
	f.Detail, f.Divergence = d.Text(), d
	return f
}

// configOf returns the configuration that replays run for the grader's
// variant, as its replay command makes it; false for a run no name
// replays.
func (g *grader) configOf(run sim.RunID) (sim.Config, bool) {
	if run.Explore {
		if g.exploreRun == nil {
			return sim.Config{}, false
		}
		return *g.exploreRun, true
	}
	cfg, err := scenarios.Config(run, g.v)
	if err != nil {
		return sim.Config{}, false
	}
	if g.opts.StepBudget > 0 {
		cfg.StepBudget = g.opts.StepBudget
	}
	return cfg, true
}

// nondeterministicHint is the lab's own hint for a run that goes two
// ways.
var nondeterministicHint = lang.Text{
	EN: "take time only from the clocks you are given (env.Clock, env.DBClock), randomness only from env.Rand, range over a slice or sorted keys rather than a map, start no goroutine, keep nothing in package variables: the simulator decides what happens when, and one seed must give one run.",
	DE: "nimm die Zeit nur von den Uhren, die du bekommst (env.Clock, env.DBClock), Zufall nur von env.Rand, durchlaufe ein Slice oder sortierte Schlüssel statt einer Map, starte keine Goroutine, halte nichts in Paketvariablen: der Simulator entscheidet, was wann geschieht, und ein Seed muss einen Lauf ergeben.",
}
