package sim

import (
	"fmt"
	"slices"
	"strings"

	"outboxlab/lang"
	"outboxlab/sim/check"
	"outboxlab/variant"
)

// Sweep is the exhaustive crash test of one variant beyond the matrix rows:
// a crash at every point the workload reaches (not only the named rows), at
// every occurrence, and then a second crash at every point reached after
// the first one, recovery included; with one relay and again with two,
// as the matrix's cells.
type Sweep struct {
	Variant string
	// Points are the crash points the workload reaches without a crash.
	Points int
	// Runs is how many runs the sweep took.
	Runs int
	// Failures are the runs that were not OK (or broke a safety property).
	Failures []SweepFailure
}

// SweepFailure is one run of a sweep that broke something.
type SweepFailure struct {
	Relays  int
	Crashes []Crash
	// Failure is the commit failure of a FailureSweep's run, and Row the
	// fault row it ran under ("" for the workload alone).
	Failure    *Fault
	Row        string
	Outcome    variant.Outcome
	Violations []check.Violation
	Unsafe     []lang.Text
	// Missing are the situations the run should have reached and did
	// not: FailureReported, in a FailureSweep's run whose process
	// swallowed the failed commit.
	Missing []Situation
	// Missteps are the run's (see Result.Missteps).
	Missteps
}

// failed returns the sweep failure res makes, or nil when res is OK, safe,
// and every process handled and handed back what it should have.
func failed(res Result, relays int, missing []Situation) *SweepFailure {
	if res.Outcome == variant.OK && len(res.Unsafe) == 0 && len(missing) == 0 && !res.Missteps.Any() {
		return nil
	}
	return &SweepFailure{Relays: relays, Outcome: res.Outcome, Violations: res.Violations, Unsafe: res.Unsafe,
		Missing: missing, Missteps: res.Missteps}
}

// Sweep runs the sweep for v on the matrix's workload; the points run in
// parallel (Workers), the result is the same as one after the other.
func (m Matrix) Sweep(v variant.Variant) (Sweep, error) {
	sw := Sweep{Variant: v.Name}
	for _, relays := range m.relayCounts(v, Point{}) {
		one, err := m.sweep(v, relays)
		if err != nil {
			return sw, err
		}
		sw.Points = max(sw.Points, one.Points)
		sw.Runs += one.Runs
		sw.Failures = append(sw.Failures, one.Failures...)
	}
	return sw, nil
}

// SweepBurst is how many commits in a row the failure sweep fails from
// each commit of the workload alone: a database that flaps for a moment
// fails one delivery's commit three times over, and a consumer that
// counts failed commits against the message gives a healthy one up.
const SweepBurst = 3

// FailureSweep runs v on the matrix's workload with one commit failure
// at every commit its run makes (each commit boundary it crosses, each
// occurrence), and, for the workload alone, a burst of SweepBurst from
// each, with one relay and again with two as the matrix's cells, and
// again under each of FailureRows' faults: the error path a commit that
// does not reach the database takes, at every place it can be taken.
// A run fails when it is not OK, breaks a safety property, never reaches
// FailureReported (the process that made the commit went on as if it had
// committed), or a relay or consumer returned an error other than the
// failed commit: Relay.Run stops at a step's error, so what the process
// can handle itself (a broker's error, a claim conflict, a lease another
// relay took over) must not be one.
func (m Matrix) FailureSweep(v variant.Variant) (Sweep, error) {
	sw := Sweep{Variant: v.Name}
	if len(m.CommitBoundaries) == 0 {
		return sw, fmt.Errorf("sim: failure sweep: the matrix names no commit boundaries to fail (Matrix.CommitBoundaries; scenarios.Matrix has them)")
	}
	rows := []Point{{}} // the workload alone
	for _, id := range m.FailureRows {
		i := slices.IndexFunc(m.Points, func(p Point) bool { return p.ID == id })
		if i < 0 || m.Points[i].Kind != KindFault {
			return sw, fmt.Errorf("sim: failure sweep: %q is not a fault row of the matrix", id)
		}
		rows = append(rows, m.Points[i])
	}
	for _, row := range rows {
		for _, relays := range m.relayCounts(v, row) {
			if relays < row.MinRelays {
				continue
			}
			if err := m.failureSweep(v, row, relays, &sw); err != nil {
				return sw, err
			}
		}
	}
	return sw, nil
}

// failureSweep adds to sw the runs of the failure sweep under row's faults
// with the given number of relays.
func (m Matrix) failureSweep(v variant.Variant, row Point, relays int, sw *Sweep) error {
	config := func() Config {
		cfg := m.Config(v)
		row.Apply(&cfg)
		cfg.Faults = slices.Clone(cfg.Faults)
		cfg.Relays = relays
		return cfg
	}
	base, err := Run(config())
	if err != nil {
		return err
	}
	if base.Busy.EN != "" {
		// The row never settles without a failed commit: the matrix's
		// cell says so (STUCK). Its commits, thousands in a run that
		// retries without end, would each be a run that never settles
		// either: minutes of a grading that add nothing.
		sw.Runs++
		return nil
	}
	var planned []Fault
	for _, b := range m.CommitBoundaries {
		process, effect, _ := strings.Cut(b, ".")
		for k := 1; k <= base.Reached[process+".before-"+effect]; k++ {
			planned = append(planned, Fault{Kind: FaultCommitFailure, Point: b, Occurrence: k})
			if row.ID == "" {
				// A burst from here: the same commit failing again and
				// again while the database flaps (billing's of one
				// delivery, which it gets back at once).
				planned = append(planned, Fault{Kind: FaultCommitFailure, Point: b, Occurrence: k, Burst: SweepBurst})
			}
		}
	}
	sw.Points = max(sw.Points, len(planned))
	failures := make([]*SweepFailure, len(planned))
	err = Parallel(len(planned), m.Workers, func(i int) error {
		cfg := config()
		cfg.Faults = append(cfg.Faults, planned[i])
		res, err := Run(cfg)
		if err != nil || res.CommitFailures != max(planned[i].Burst, 1) {
			return err // a burst the workload's commits ran out before is a shorter one
		}
		var missing []Situation
		if res.Situations[FailureReported] == 0 {
			missing = []Situation{FailureReported}
		}
		if f := failed(res, relays, missing); f != nil {
			f.Row, f.Failure = row.ID, &planned[i]
			failures[i] = f
		}
		return nil
	})
	if err != nil {
		return err
	}
	sw.Runs += 1 + len(planned)
	for _, f := range failures {
		if f != nil {
			sw.Failures = append(sw.Failures, *f)
		}
	}
	return nil
}

// sweep is the sweep with the given number of relays.
func (m Matrix) sweep(v variant.Variant, relays int) (Sweep, error) {
	type outcome struct {
		runs     int
		failures []SweepFailure
	}
	run := func(o *outcome, crashes ...Crash) (Result, error) {
		cfg := m.Config(v)
		cfg.Relays = relays
		cfg.Crashes = crashes
		o.runs++
		res, err := Run(cfg)
		if f := failed(res, relays, nil); err == nil && len(res.Fired) == len(crashes) && f != nil {
			f.Crashes = crashes
			o.failures = append(o.failures, *f)
		}
		return res, err
	}
	var first outcome
	base, err := run(&first)
	if err != nil {
		return Sweep{Variant: v.Name}, err
	}
	points := base.ReachedPoints()
	outcomes := make([]outcome, len(points))
	err = Parallel(len(points), m.Workers, func(i int) error {
		o := &outcomes[i]
		for k := 1; ; k++ {
			crash := Crash{Point: points[i], Occurrence: k}
			res, err := run(o, crash)
			if err != nil {
				return err
			}
			if len(res.Fired) == 0 {
				return nil // reached fewer than k times
			}
			for _, q := range res.ReachedPoints() {
				if _, err := run(o, crash, Crash{Point: q, Occurrence: 1}); err != nil {
					return err
				}
			}
		}
	})
	sw := Sweep{Variant: v.Name, Points: len(points), Runs: first.runs, Failures: first.failures}
	for _, o := range outcomes {
		sw.Runs += o.runs
		sw.Failures = append(sw.Failures, o.failures...)
	}
	return sw, err
}
