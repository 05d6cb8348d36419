package verdict

import (
	"fmt"

	"outboxlab/lang"
	"outboxlab/sim"
	"outboxlab/variant"
)

// Stage is one part of a grading.
type Stage int

// The stages, in the order a grading runs them.
const (
	// StageMatrix is the crash matrix, every cell against the variant's
	// declaration.
	StageMatrix Stage = iota
	// StageAssumptions is the rows that contradict what code may assume
	// and nothing else contradicts (scenarios.Assumptions): an order's
	// tenth event, a field its contract does not name, more waiting
	// messages than a batch ahead of a due one, a cleanup on a relay whose
	// clock runs ahead, a relay restarting once a dead letter exists. Each
	// row against the variant's declaration.
	StageAssumptions
	// StageSweep is the double-crash sweep: a crash at every point the
	// workload reaches, then another at every point after it.
	StageSweep
	// StageFailureSweep fails every commit of the workload once, alone
	// and under the matrix's failure rows.
	StageFailureSweep
	// StagePolled is the matrix with every relay polled as Relay.Run
	// polls it, instead of woken when its NextWake says.
	StagePolled
	// StageExplore is random schedules: workloads, faults, crashes and
	// interleavings, shrunk to a short counterexample.
	StageExplore
	// StageReplay is runs made twice and compared event by event: a
	// sample of the matrix's runs and of first failed commits, made before
	// every other run and again after the last, and every finding's run
	// (depth course and full).
	// Its findings are NONDETERMINISTIC.
	StageReplay
)

var stageTexts = [...]lang.Text{
	{EN: "matrix", DE: "Matrix"},
	{EN: "assumptions", DE: "Annahmen"},
	{EN: "sweep", DE: "Sweep"},
	{EN: "failure sweep", DE: "Failure-Sweep"},
	{EN: "polled matrix", DE: "gepollte Matrix"},
	{EN: "exploration", DE: "Exploration"},
	{EN: "replays", DE: "Wiederholungen"},
}

// Text names the stage in both languages.
func (s Stage) Text() lang.Text {
	if s < 0 || int(s) >= len(stageTexts) {
		return lang.Plain(fmt.Sprintf("Stage(%d)", int(s)))
	}
	return stageTexts[s]
}

// String returns the stage's English name.
func (s Stage) String() string { return s.Text().EN }

// Cause is why a run fails its grading.
type Cause int

// The causes. A run can have several (an outcome and a misstep); each
// is a finding of its own.
const (
	// CauseOutcome: the run's outcome is not what the variant declares
	// (Finding.Outcome and Finding.Expected say which).
	CauseOutcome Cause = iota
	// CauseUnhandled: a relay or consumer returned an error it should
	// have handled itself (Relay.Run stops at a step's error).
	CauseUnhandled
	// CauseUnreported: a commit failed and the process went on as if it
	// had committed: the error never came back from its step, delivery or
	// command.
	CauseUnreported
	// CauseSwallowedCrash: a process whose effect returned
	// effect.ErrCrashed went on instead of returning it.
	CauseSwallowedCrash
	// CausePanic: the variant's code panicked.
	CausePanic
	// CauseMissingSituation: a matrix row never produced what it exists
	// to produce (asked only with Options.Situations).
	CauseMissingSituation
	// CauseError: the run could not be made (the variant failed to build,
	// or the lab refused its configuration).
	CauseError
)

var causeNames = [...]string{"outcome", "unhandled-error", "unreported-failure", "swallowed-crash", "panic", "missing-situation", "error"}

// String returns the cause's name, as JSON writes it.
func (c Cause) String() string {
	if c < 0 || int(c) >= len(causeNames) {
		return fmt.Sprintf("Cause(%d)", int(c))
	}
	return causeNames[c]
}

// MarshalText writes the cause's name.
func (c Cause) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Finding is one cause of one failing run.
type Finding struct {
	Stage Stage
	Cause Cause
	// Outcome is the run's outcome, and Expected what the variant
	// declares for it (OK beyond the matrix). For a matrix cell Outcome
	// is the cell's worst, variant.NotApplicable if no run reached it.
	Outcome, Expected variant.Outcome
	// Point is the matrix row of a matrix or polled finding, the row of
	// an assumptions finding.
	Point string
	// Detail is what went wrong, as the checker or the simulator said it:
	// the first violation, the error, the panic (the last two as the
	// variant's code said them, the same in both languages).
	Detail lang.Text
	// Run is the run it came from, which replays it (Run.Command, for
	// labrun; Run.TestFlags, for a test that grades with package grade).
	Run sim.RunID
	// Found and Tried count, for an exploration, the schedules that broke
	// something and those tried.
	Found, Tried int
	// Divergence is, for a NONDETERMINISTIC finding, where the two runs
	// of Run part.
	Divergence *sim.Divergence
}

// Verdict is what a grading found.
type Verdict struct {
	Variant string
	Depth   Depth
	// Correct says the variant claims to be correct (it declares OK
	// everywhere): only then do the stages beyond the matrix run.
	Correct bool
	// Cells are the matrix's, row by row (fewer when the grading
	// stopped early).
	Cells []sim.Cell
	// Stages are the stages that ran, in order.
	Stages []StageResult
	// Findings are every cause of every failing run, stage by stage.
	Findings []Finding
	// Stopped says the grading stopped early (Options.Stop).
	Stopped bool
	// MaxRelays is how many relays the variant declares it supports
	// (variant.Variant.MaxRelays, 0 for any number): why no run had more.
	MaxRelays int
}

// StageResult says how one stage went.
type StageResult struct {
	Stage Stage
	// Runs is how many runs it made, Points how many crash points or
	// commits it covered (sweeps), Failed how many runs failed.
	Runs, Points, Failed int
}

// Passed reports whether nothing was found.
func (v Verdict) Passed() bool { return len(v.Findings) == 0 }

// Runs returns how many runs the grading made.
func (v Verdict) Runs() int {
	n := 0
	for _, s := range v.Stages {
		n += s.Runs
	}
	return n
}

// Stage returns how stage s went, and whether it ran.
func (v Verdict) Stage(s Stage) (StageResult, bool) {
	for _, r := range v.Stages {
		if r.Stage == s {
			return r, true
		}
	}
	return StageResult{}, false
}
