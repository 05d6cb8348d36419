package verdict

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"outboxlab/lab/explore"
	"outboxlab/lang"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// Stop says when a grading ends before its last stage.
type Stop int

const (
	// StopNever runs every stage of the depth: what a learner sees.
	StopNever Stop = iota
	// StopAfterRedStage runs a stage only when the ones before it found
	// nothing: every finding of the first stage that has any.
	StopAfterRedStage
	// StopAtFirstRed ends the grading at its first finding (in the
	// matrix, the first red cell in row order, whatever the workers):
	// for the mutation analysis, which asks only whether a mutant is
	// caught.
	StopAtFirstRed
)

// Options say how to grade.
type Options struct {
	Depth Depth
	Stop  Stop
	// Situations asks of every matrix cell the situations its row exists
	// to produce (a claim released by a recovery, a gap parked, ...).
	// They are the reference's mechanics: the crash matrix test and the
	// mutation analysis ask them of the reference, not of a learner's
	// variant, whose mechanics may differ.
	Situations bool
	// Workers is how many runs go at once: 0 for every core. The verdict
	// is the same, byte for byte.
	Workers int
	// First names matrix rows (point ids) to run before the others, in
	// this order; the rest follow in row order, and Verdict.Cells is in
	// the order run. With StopAtFirstRed the first red cell is then the
	// first in this order: the mutation analysis puts first the rows
	// that caught the most mutants before. Names that are no row are
	// ignored.
	First []string
	// StepBudget bounds the steps of each run of the matrix, the sweeps
	// and the polled matrix (sim.Config.StepBudget; exploration's runs
	// keep their own bounds): 0 for none. A run that spends it is STUCK.
	StepBudget int
}

// Grade grades v at opts.Depth: every matrix cell against what v
// declares, and, for a variant that claims to be correct, the stages
// the depth adds. Every failing run becomes findings, one per cause, with
// the run that replays it; a variant that panics or fails to build is a
// finding too. The error is for what cannot be graded at all: a variant
// that does not validate.
func Grade(v variant.Variant, opts Options) (Verdict, error) {
	if err := v.Validate(); err != nil {
		return Verdict{}, fmt.Errorf("verdict: %w", err)
	}
	if err := declaredAtRows(v); err != nil {
		return Verdict{}, err
	}
	g := newGrader(v, opts)
	var sample []sampled
	replays := g.plan.replays && opts.Stop != StopAtFirstRed
	if replays {
		sample = g.sampleFirst() // before any other run: a package variable as a fresh process has it
	}
	g.run(StageMatrix)
	p := g.plan
	for _, s := range []struct {
		stage Stage
		on    bool
	}{{StageAssumptions, p.assumptions}, {StageSweep, p.sweeps}, {StageFailureSweep, p.sweeps}, {StagePolled, p.polled}, {StageExplore, p.runs > 0}} {
		if !s.on || !g.out.Correct {
			continue
		}
		if g.stopped() {
			g.out.Stopped = true
			break
		}
		g.run(s.stage)
	}
	if replays {
		g.replay(sample)
	}
	return g.out, nil
}

// newGrader starts a grading of v.
func newGrader(v variant.Variant, opts Options) *grader {
	g := &grader{v: v, opts: opts, m: scenarios.Matrix(), plan: opts.Depth.plan()}
	g.m.Workers = opts.Workers
	g.m.Points = firstPoints(g.m.Points, opts.First)
	if b := opts.StepBudget; b > 0 {
		base := g.m.Base
		g.m.Base = func(c *sim.Config) {
			if base != nil {
				base(c)
			}
			c.StepBudget = b
		}
	}
	g.out = Verdict{Variant: v.Name, Depth: opts.Depth, Correct: v.Correct(), MaxRelays: v.MaxRelays}
	return g
}

// firstPoints returns points with the rows first names put first, in
// first's order.
func firstPoints(points []sim.Point, first []string) []sim.Point {
	if len(first) == 0 {
		return points
	}
	out := make([]sim.Point, 0, len(points))
	taken := make([]bool, len(points))
	for _, id := range first {
		for i, p := range points {
			if p.ID == id && !taken[i] {
				taken[i] = true
				out = append(out, p)
			}
		}
	}
	for i, p := range points {
		if !taken[i] {
			out = append(out, p)
		}
	}
	return out
}

// run runs stage s and adds what it found.
func (g *grader) run(s Stage) {
	switch s {
	case StageMatrix:
		g.out.Cells = g.cells(StageMatrix, g.m)
	case StageAssumptions:
		m := g.m
		m.Points = scenarios.Assumptions()
		g.cells(StageAssumptions, m)
	case StageSweep:
		g.sweep()
	case StageFailureSweep:
		g.failureSweep()
	case StagePolled:
		g.cells(StagePolled, g.m.Polled())
	case StageExplore:
		g.explore(g.plan.runs, g.plan.seeds)
	}
}

// grader is one grading in progress.
type grader struct {
	v    variant.Variant
	opts Options
	m    sim.Matrix
	plan plan // what the depth runs beyond the matrix
	out  Verdict
	// exploreRun is the run of the exploration's finding, its shrunk
	// schedule, for the replay stage.
	exploreRun *sim.Config
}

// stopped reports whether the grading ends here (Options.Stop).
func (g *grader) stopped() bool { return g.opts.Stop != StopNever && len(g.out.Findings) > 0 }

// add adds the findings of one stage's run.
func (g *grader) add(fs ...Finding) { g.out.Findings = append(g.out.Findings, fs...) }

// cells runs m's cells for the variant and adds their findings as stage
// s's; with StopAtFirstRed it stops at the first red cell in row order.
func (g *grader) cells(s Stage, m sim.Matrix) []sim.Cell {
	points := m.Points
	cells := make([]sim.Cell, len(points))
	errs := make([]error, len(points))
	chunk := len(points)
	if g.opts.Stop == StopAtFirstRed {
		chunk = max(1, g.opts.Workers) // a few at once, then look
		if g.opts.Workers < 1 {
			chunk = 2
		}
	}
	result := StageResult{Stage: s}
	defer func() { g.out.Stages = append(g.out.Stages, result) }()
	for lo := 0; lo < len(points); lo += chunk {
		hi := min(lo+chunk, len(points))
		_ = sim.Parallel(hi-lo, g.opts.Workers, func(i int) error {
			cells[lo+i], errs[lo+i] = m.RunCell(g.v, points[lo+i])
			return nil
		})
		for i := lo; i < hi; i++ {
			result.Runs += cells[i].Runs
			fs := g.cellFindings(s, points[i], cells[i], errs[i])
			if len(fs) > 0 {
				result.Failed++
			}
			g.add(g.news(fs)...)
			if g.opts.Stop == StopAtFirstRed && len(g.out.Findings) > 0 {
				return cells[:i+1]
			}
		}
	}
	return cells
}

// news drops from a polled cell's findings those the plain matrix found
// at the same row, for the same cause and outcome: the polled matrix
// reports what only polling shows.
func (g *grader) news(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		seen := f.Stage == StagePolled && slices.ContainsFunc(g.out.Findings, func(m Finding) bool {
			return m.Stage == StageMatrix && m.Point == f.Point && m.Cause == f.Cause && m.Outcome == f.Outcome
		})
		if !seen {
			out = append(out, f)
		}
	}
	return out
}

// cellFindings are what one cell shows: its outcome against the
// declaration, its missteps, and (Options.Situations) what its row never
// reached.
func (g *grader) cellFindings(s Stage, p sim.Point, c sim.Cell, err error) []Finding {
	base := Finding{Stage: s, Outcome: c.Outcome, Expected: c.Expected, Point: p.ID, Run: sim.RunID{Variant: g.v.Name, Row: p.ID, Seed: g.m.Seed}}
	if s == StagePolled {
		base.Run.Poll = true
	}
	if err != nil {
		return []Finding{errorFinding(base, err)}
	}
	var out []Finding
	if !c.OutcomeMatches() {
		f := base
		f.Cause = CauseOutcome
		if ce := c.Counterexample; ce != nil {
			f.Run = *ce
		}
		switch {
		case len(c.Violations) > 0:
			f.Detail = c.Violations[0].Text()
		case c.Outcome == variant.NotApplicable:
			f.Detail = lang.Text{
				EN: "the workload never reaches the point: the row tests nothing for this variant",
				DE: "die Arbeitslast erreicht den Punkt nie: die Zeile prüft für diese Variante nichts"}
		}
		out = append(out, f)
	}
	if c.MisstepRun != nil {
		out = append(out, misstepFindings(base, c.Missteps, *c.MisstepRun)...)
	}
	if missing := c.Missing(); g.opts.Situations && len(missing) > 0 {
		f := base
		f.Cause, f.Detail = CauseMissingSituation, lang.Textf(lang.Text{EN: "never reached %v", DE: "nie erreicht: %v"}, missing)
		if ce := c.Counterexample; ce != nil {
			f.Run = *ce
		}
		out = append(out, f)
	}
	return out
}

// misstepFindings are one finding per kind of misstep, each with run.
func misstepFindings(base Finding, m sim.Missteps, run sim.RunID) []Finding {
	var out []Finding
	for _, k := range []struct {
		cause Cause
		list  []string
	}{{CauseUnhandled, m.Unhandled}, {CauseSwallowedCrash, m.Swallowed}, {CausePanic, m.Panics}} {
		if len(k.list) > 0 {
			f := base
			f.Cause, f.Detail, f.Run = k.cause, lang.Plain(k.list[0]), run
			out = append(out, f)
		}
	}
	return out
}

// errorFinding is the finding of a run that could not be made.
func errorFinding(base Finding, err error) Finding {
	base.Cause, base.Detail = CauseError, lang.Plain(err.Error())
	if errors.Is(err, sim.ErrPanicked) {
		base.Cause = CausePanic
	}
	return base
}

// sweep runs the double-crash sweep.
func (g *grader) sweep() {
	sw, err := g.m.Sweep(g.v)
	result := StageResult{Stage: StageSweep, Runs: sw.Runs, Points: sw.Points, Failed: len(sw.Failures)}
	g.out.Stages = append(g.out.Stages, result)
	if err != nil {
		g.out.Stages[len(g.out.Stages)-1].Failed = 1 // a run that could not be made
		g.add(errorFinding(Finding{Stage: StageSweep, Run: g.happyPath(0)}, err))
		return
	}
	// Single crashes first: the simplest run of a cause is its first.
	failures := slices.Clone(sw.Failures)
	slices.SortStableFunc(failures, func(a, b sim.SweepFailure) int { return len(a.Crashes) - len(b.Crashes) })
	for _, f := range failures {
		run := g.happyPath(f.Relays)
		if len(f.Crashes) > 0 {
			run.Story, run.Crashes = "", f.Crashes
			for _, c := range f.Crashes {
				run.Schedule = append(run.Schedule, "crash "+c.String())
			}
		}
		g.add(runFindings(Finding{Stage: StageSweep, Outcome: f.Outcome, Expected: variant.OK, Run: run}, f)...)
	}
}

// failureSweep runs the failure sweep.
func (g *grader) failureSweep() {
	sw, err := g.m.FailureSweep(g.v)
	g.out.Stages = append(g.out.Stages, StageResult{Stage: StageFailureSweep, Runs: sw.Runs, Points: sw.Points, Failed: len(sw.Failures)})
	if err != nil {
		g.out.Stages[len(g.out.Stages)-1].Failed = 1 // a run that could not be made
		g.add(errorFinding(Finding{Stage: StageFailureSweep, Run: g.happyPath(0)}, err))
		return
	}
	for _, f := range sw.Failures {
		run := sim.RunID{Variant: g.v.Name, Row: f.Row, Failure: f.Failure, Seed: g.m.Seed, Relays: extraRelays(f.Relays),
			Schedule: []string{"fault " + f.Failure.String()}}
		g.add(runFindings(Finding{Stage: StageFailureSweep, Outcome: f.Outcome, Expected: variant.OK, Point: f.Row, Run: run}, f)...)
	}
}

// happyPath is the sweeps' run without a crash or a failed commit, the
// story happy-path, with relays relays (extraRelays).
func (g *grader) happyPath(relays int) sim.RunID {
	return sim.RunID{Variant: g.v.Name, Story: "happy-path", Seed: g.m.Seed, Relays: extraRelays(relays)}
}

// extraRelays is a run's relays as a replay states them: 0 for the one
// relay every scenario runs by default.
func extraRelays(n int) int {
	if n > 1 {
		return n
	}
	return 0
}

// runFindings are the causes of one failing sweep run: its outcome, a
// failed commit it never reported, its missteps.
func runFindings(base Finding, f sim.SweepFailure) []Finding {
	var out []Finding
	if f.Outcome != variant.OK {
		o := base
		o.Cause = CauseOutcome
		if len(f.Violations) > 0 {
			o.Detail = f.Violations[0].Text()
		}
		out = append(out, o)
	}
	if len(f.Missing) > 0 {
		u := base
		u.Cause = CauseUnreported
		u.Detail = lang.Textf(lang.Text{
			EN: "the failed commit never came back as an error from the step, the delivery or the command that made it (never reached %s)",
			DE: "der gescheiterte Commit kam nie als Fehler aus dem Schritt, der Zustellung oder dem Befehl zurück, die ihn machten (nie erreicht: %s)"},
			sim.FailureReported)
		out = append(out, u)
	}
	out = append(out, misstepFindings(base, f.Missteps, base.Run)...)
	if len(out) == 0 { // a breach with no other name: still a finding
		o := base
		o.Cause = CauseOutcome
		if len(f.Unsafe) > 0 {
			o.Detail = f.Unsafe[0]
		}
		out = append(out, o)
	}
	return out
}

// explore runs random schedules at seeds 1, 2, ..., up to seeds, until a
// seed finds something: one counterexample is enough; the other seeds
// are there to find what one seed misses.
func (g *grader) explore(runs, seeds int) {
	result := StageResult{Stage: StageExplore}
	defer func() { g.out.Stages = append(g.out.Stages, result) }()
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		base := Finding{Stage: StageExplore, Expected: variant.OK, Run: sim.RunID{Variant: g.v.Name, Explore: true, ExploreRuns: runs, ExploreSeed: seed}}
		f, err := explore.Explore(g.v, runs, seed, explore.Options{Workers: g.opts.Workers})
		var failed *explore.ScheduleError
		if errors.As(err, &failed) {
			// The schedule that could not be run, and what failed in it:
			// exploring up to it meets the error again.
			base.Found, base.Tried = 1, failed.Runs()
			base.Run.ExploreRuns, base.Run.Schedule = failed.Runs(), failed.Schedule.Lines()
			result.Runs, result.Failed = result.Runs+failed.Runs(), result.Failed+1
			g.add(errorFinding(base, failed.Err))
			return
		}
		if err != nil {
			result.Runs, result.Failed = result.Runs+runs, result.Failed+1 // a run that could not be made
			g.add(errorFinding(base, err))
			return
		}
		if f == nil {
			result.Runs += runs
			continue
		}
		result.Runs += f.Runs
		result.Failed += f.Found
		base.Outcome, base.Found, base.Tried = f.Result.Outcome, f.Found, f.Runs
		base.Run = f.Run()
		cfg := f.Schedule.Config(g.v)
		g.exploreRun = &cfg
		g.add(runFindings(base, sim.SweepFailure{Outcome: f.Result.Outcome, Violations: f.Result.Violations, Unsafe: f.Result.Unsafe, Missteps: f.Result.Missteps})...)
		return
	}
}

// ErrNoSuchRow is a variant's declaration at a point the matrix does not
// have: the variant cannot be graded as written (labrun exits 2).
var ErrNoSuchRow = errors.New("a declared outcome names no row of the matrix")

// declaredAtRows returns an error for an outcome v declares at a point
// that is no row of the matrix: a mistyped point ("relay.after-sent")
// would declare nothing where the learner meant it, and, as a declared
// failure, would make the variant one that is not correct, whose grading
// stops after the matrix: a variant graded OK on 157 runs instead of
// 10,000.
func declaredAtRows(v variant.Variant) error {
	rows := scenarios.Points()
	var unknown []string
	for point := range v.Expect {
		if !slices.ContainsFunc(rows, func(p sim.Point) bool { return p.ID == point }) {
			unknown = append(unknown, point)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	ids := make([]string, len(rows))
	for i, p := range rows {
		ids[i] = p.ID
	}
	return fmt.Errorf("verdict: variant %s declares an outcome at %s, which is no row of the matrix (its rows: %s): %w", v.Name, strings.Join(unknown, ", "), strings.Join(ids, ", "), ErrNoSuchRow)
}
