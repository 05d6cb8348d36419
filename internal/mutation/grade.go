package mutation

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"outboxlab/internal/mutation/on"
	"outboxlab/lab/check"
	"outboxlab/lab/explore"
	"outboxlab/lab/variant"
	"outboxlab/scenarios"
	"outboxlab/sim"
)

// Depth says how hard a mutant is graded.
type Depth int

const (
	// FirstRed grades with the matrix's cells until one goes red.
	FirstRed Depth = iota
	// Matrix grades with the matrix's cells only.
	Matrix
	// Full grades with the cells; if they find nothing, with the
	// double-crash sweep; if it finds nothing, with the failure sweep (a
	// commit failure at every commit); if it finds nothing, with
	// ExploreRuns random schedules (seed 1); if they find nothing, with
	// the matrix of the other correct variants, which share its parts;
	// if it finds nothing, with the matrix polled as Relay.Run polls.
	Full
)

// ExploreRuns is how many random schedules a full grading explores.
const ExploreRuns = 300

// maxSweepRows bounds the sweep failures a result lists.
const maxSweepRows = 3

// GradeMutant grades the reference variant with mutant id on, in this
// process (which must have been built with the mutants: see Build).
func GradeMutant(id int, depth Depth) (r Result) {
	on.Active = id
	defer func() { on.Active = -1 }()
	r.ID = id
	defer func() {
		if p := recover(); p != nil {
			r.Crashed = fmt.Sprintf("panic: %v", p)
		}
	}()
	v := variant.Outbox()
	m := scenarios.Matrix()
	for _, p := range m.Points {
		c, err := m.RunCell(v, p)
		switch {
		case err != nil:
			r.Failed = append(r.Failed, fmt.Sprintf("%s: error %v", p.ID, err))
		case !c.Matches():
			r.Failed = append(r.Failed, cellRow(c))
		case len(c.Missing()) > 0:
			// The row exists to produce a situation and no longer does:
			// the matrix test fails on that too.
			r.Failed = append(r.Failed, fmt.Sprintf("%s: never reached %v", p.ID, c.Missing()))
		}
		if depth == FirstRed && len(r.Failed) > 0 {
			return r
		}
	}
	if depth != Full || len(r.Failed) > 0 {
		return r // the matrix names the rows; the sweep and exploration look further only if it found nothing
	}
	sw, err := m.Sweep(v)
	if err != nil {
		r.Failed = append(r.Failed, "sweep: error "+err.Error())
	}
	seen := map[string]bool{}
	for _, f := range sw.Failures {
		var parts []string
		for _, c := range f.Crashes {
			parts = append(parts, fmt.Sprintf("%s@%d", c.Point, c.Occurrence))
		}
		row := "sweep " + strings.Join(parts, "+")
		if f.Relays > 1 {
			row += fmt.Sprintf(" (%d relays)", f.Relays)
		}
		key := f.Outcome.String()
		if seen[key] || len(seen) == maxSweepRows {
			continue
		}
		seen[key] = true
		r.Failed = append(r.Failed, row+": "+f.Outcome.String())
	}
	if len(r.Failed) > 0 {
		return r
	}
	fs, err := m.FailureSweep(v)
	if err != nil {
		r.Failed = append(r.Failed, "failure sweep: error "+err.Error())
	}
	for _, f := range fs.Failures {
		row := scenarios.FailureName(f.Row, *f.Failure)
		if f.Relays > 1 {
			row += fmt.Sprintf(" (%d relays)", f.Relays)
		}
		switch {
		case len(f.Missing) > 0:
			row += fmt.Sprintf(": never reached %v", f.Missing)
		case f.Outcome == check.OK && len(f.Unhandled) > 0:
			row += ": unhandled error " + f.Unhandled[0]
		default:
			row += ": " + f.Outcome.String()
		}
		if len(r.Failed) < maxSweepRows {
			r.Failed = append(r.Failed, row)
		}
	}
	if len(r.Failed) > 0 {
		return r
	}
	found, err := explore.Explore(v, ExploreRuns, 1, explore.Options{Workers: 1})
	switch {
	case err != nil:
		r.Failed = append(r.Failed, "explore: error "+err.Error())
	case found != nil && found.Result.Outcome == check.OK && len(found.Result.Unhandled) > 0:
		r.Failed = append(r.Failed, fmt.Sprintf("explore: unhandled error %s (%s)", found.Result.Unhandled[0], strings.Join(found.Schedule.Lines(), "; ")))
	case found != nil:
		r.Failed = append(r.Failed, fmt.Sprintf("explore: %s (%s)", found.Result.Outcome, strings.Join(found.Schedule.Lines(), "; ")))
	}
	if len(r.Failed) > 0 {
		return r
	}
	// The other correct variants build on the same parts (billing's
	// consumer in both, the consumer with a role of its own as
	// listen-to-yourself's listener), and so does the reference relay
	// that deletes what it sent (chapter 004): their matrix rows must
	// hold too.
	for _, other := range []variant.Variant{variant.ListenToYourself(), variant.CDC(), variant.DeleteOnSend()} {
		if row := firstDisagreement(m, other, other.Name); row != "" {
			r.Failed = append(r.Failed, row)
			return r
		}
	}
	// Last, the reference polled as its production loop polls it
	// (Relay.Run: every IdlePoll, whatever NextWake says): what only
	// NextWake kept in the simulator must hold in Step too.
	if row := firstDisagreement(m.Polled(), v, "polled"); row != "" {
		r.Failed = append(r.Failed, row)
	}
	return r
}

// firstDisagreement runs m's rows for v in order and names the first cell
// that disagrees with v's declaration ("label at row: outcome"), or
// returns "". A row's situations are the reference's to reach, in the
// matrix proper: they are not asked of the cells here.
func firstDisagreement(m sim.Matrix, v variant.Variant, label string) string {
	for _, p := range m.Points {
		c, err := m.RunCell(v, p)
		switch {
		case err != nil:
			return fmt.Sprintf("%s at %s: error %v", label, p.ID, err)
		case !c.Matches():
			return label + " at " + cellRow(c)
		}
	}
	return ""
}

// cellRow names a failing cell as labrun scenario replays it.
func cellRow(c sim.Cell) string {
	run, verdict := c.Counterexample, c.Outcome.String()
	if len(c.Unhandled) > 0 && c.OutcomeMatches() {
		run, verdict = c.MisstepRun, "unhandled error "+c.Unhandled[0]
	}
	row := c.Point.ID
	if run != nil {
		row = run.Scenario
		if run.Relays > 1 {
			row += fmt.Sprintf(" (%d relays)", run.Relays)
		}
	}
	return row + ": " + verdict
}

// ServeGrades grades each of ids and writes one JSON result per line: the
// grader's side of Grade.
func ServeGrades(ids []int, depth Depth, w io.Writer) error {
	enc := json.NewEncoder(w)
	for _, id := range ids {
		if err := enc.Encode(GradeMutant(id, depth)); err != nil {
			return err
		}
	}
	return nil
}
