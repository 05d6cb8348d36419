package mutation

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"outboxlab/alternatives/cdc"
	"outboxlab/alternatives/listen"
	"outboxlab/internal/mutation/on"
	"outboxlab/lab/verdict"
	"outboxlab/variant"
)

// Depth says how hard a mutant is graded.
type Depth int

const (
	// FirstRed grades with the matrix's cells until one goes red.
	FirstRed Depth = iota
	// Matrix grades with the matrix's cells only.
	Matrix
	// Full grades through the lab's grader at depth course until its
	// first red result (the matrix, the double-crash sweep, the failure
	// sweep, the polled matrix, exploration); if there is none, with the
	// matrix of the other correct variants, which share its parts. A
	// killed mutant's result names the one row that caught it.
	Full
	// Rows is Full, but a stage that goes red runs to its end: a mutant
	// the matrix catches lists every red cell (what the page tells a
	// reader about each line), one a later stage catches up to
	// maxStageRows runs. It costs more for every mutant that breaks
	// many rows; the score is the same.
	Rows
)

// maxStageRows bounds the rows a result lists for a stage beyond the
// matrix: one per cause.
const maxStageRows = 3

// StepBudget bounds the steps of each run of a mutant's matrix, sweeps
// and polled matrix (verdict.Options.StepBudget): the reference's
// longest run of a grading at depth course took 7,105 steps (measured
// over the matrix, both sweeps, the polled matrix and 8,000 explored
// schedules), so a mutant that spins is STUCK after three times that,
// not after a phase's bound (12,000 steps, 10 more a command) in each
// phase of each run.
const StepBudget = 21_000

// options are the grader's options at depth d. A grader process grades
// one mutant at a time, on one core (Grade runs several processes).
func (d Depth) options() verdict.Options {
	o := verdict.Options{Depth: verdict.Course, Stop: verdict.StopAtFirstRed, Workers: 1, StepBudget: StepBudget}
	switch d {
	case FirstRed:
		o.Depth = verdict.Quick
	case Matrix:
		o.Depth, o.Stop = verdict.Quick, verdict.StopNever
	case Rows:
		o.Stop = verdict.StopAfterRedStage
	}
	return o
}

// GradeMutant grades the reference variant with mutant id on, in this
// process (which must have been built with the mutants: see Build),
// through the lab's grader (package verdict); the matrix rows first
// names run first, in its order (History.Order).
func GradeMutant(id int, depth Depth, first []string) (r Result) {
	on.Active = id
	defer func() { on.Active = -1 }()
	r.ID = id
	defer func() {
		if p := recover(); p != nil {
			r.Crashed = fmt.Sprintf("panic: %v", p)
		}
	}()
	// The reference's matrix rows exist to produce their situations: a
	// mutant that keeps a row from it is caught there, as the crash
	// matrix test catches it.
	opts := depth.options()
	opts.Situations = true
	opts.First = first
	r = gradeWith(variant.Outbox(), opts)
	r.ID = id
	if depth < Full || r.Killed() {
		return r
	}
	// The other correct variants build on the same parts (billing's
	// consumer in both, the consumer with a role of its own as
	// listen-to-yourself's listener), and so does the reference relay
	// that deletes what it sent (chapter 004): their matrix rows must
	// hold too. A row's situations are the reference's to reach.
	for _, other := range []variant.Variant{listen.Variant(), cdc.Variant(), variant.DeleteOnSend()} {
		ov, err := verdict.Grade(other, verdict.Options{Depth: verdict.Quick, Stop: verdict.StopAtFirstRed, Workers: 1})
		if err != nil {
			r.Crashed = err.Error()
			return r
		}
		if !ov.Passed() {
			r.Failed = append(r.Failed, other.Name+" at "+row(ov.Findings[0]))
			return r
		}
	}
	return r
}

// GradeVariant grades v as a mutant of the reference is graded, through
// the lab's grader (package verdict) at depth's options, but without
// asking the matrix rows' situations, which are the reference's
// mechanics: a variant that the grader fails is killed, one it passes
// survives.
func GradeVariant(v variant.Variant, depth Depth) Result { return gradeWith(v, depth.options()) }

// gradeWith grades v with opts and names what went red.
func gradeWith(v variant.Variant, opts verdict.Options) Result {
	vd, err := verdict.Grade(v, opts)
	if err != nil {
		return Result{Crashed: err.Error()}
	}
	return Result{Failed: rows(vd), Point: firstMatrixPoint(vd)}
}

// firstMatrixPoint is the matrix row of v's first red matrix cell, ""
// for none.
func firstMatrixPoint(v verdict.Verdict) string {
	for _, f := range v.Findings {
		if f.Stage == verdict.StageMatrix {
			return f.Point
		}
	}
	return ""
}

// rows names what went red in v, as the results list it: a row per red
// matrix cell, and a row per cause (up to maxStageRows) of a later stage.
func rows(v verdict.Verdict) []string {
	var matrix []verdict.Finding
	for _, f := range v.Findings {
		if f.Stage == verdict.StageMatrix {
			matrix = append(matrix, f)
		}
	}
	var out []string
	for _, cell := range verdict.GroupBy(matrix, func(f verdict.Finding) string { return f.Point }) {
		out = append(out, row(cell[0]))
	}
	n := 0
	for _, g := range v.Groups() {
		if f := g.First(); f.Stage != verdict.StageMatrix && n < maxStageRows {
			out = append(out, row(f))
			n++
		}
	}
	return out
}

// row names a finding as the results list it: where (a matrix cell as
// labrun scenario names it, "sweep P@1+Q@1", a failure sweep's run,
// "assumptions at ...", "polled at ...", "explore"), then what went red there.
func row(f verdict.Finding) string {
	word := f.Outcome.String()
	switch f.Cause {
	case verdict.CauseUnhandled:
		word = "unhandled error " + f.Detail.EN
	case verdict.CauseSwallowedCrash, verdict.CausePanic:
		word = f.Detail.EN
	case verdict.CauseUnreported:
		word = "never reached [failure-reported]"
	case verdict.CauseMissingSituation:
		return f.Point + ": " + f.Detail.EN
	case verdict.CauseError:
		word = "error " + f.Detail.EN
	}
	where := f.Run.Name()
	if f.Run.Relays > 1 {
		where += fmt.Sprintf(" (%d relays)", f.Run.Relays)
	}
	switch f.Stage {
	case verdict.StageAssumptions:
		where = "assumptions at " + where
	case verdict.StageSweep:
		where = "sweep " + where
	case verdict.StagePolled:
		where = "polled at " + where
	case verdict.StageExplore:
		return "explore: " + word + " (" + strings.Join(f.Run.Schedule, "; ") + ")"
	}
	return where + ": " + word
}

// ServeGrades grades each of ids and writes one JSON result per line: the
// grader's side of Grade.
func ServeGrades(ids []int, depth Depth, first []string, w io.Writer) error {
	enc := json.NewEncoder(w)
	for _, id := range ids {
		if err := enc.Encode(GradeMutant(id, depth, first)); err != nil {
			return err
		}
	}
	return nil
}
