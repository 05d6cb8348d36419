package sim

import (
	"fmt"
	"outboxlab/lab/lang"
	"slices"
	"strings"

	"outboxlab/lab/check"
	"outboxlab/lab/variant"
)

// PointKind says whether a matrix row is a crash point or a broker fault.
type PointKind string

// The two groups of matrix rows.
const (
	KindCrash PointKind = "crash"
	KindFault PointKind = "fault"
)

// Point is one row of the crash matrix.
type Point struct {
	// ID is the public id: a crash point ("relay.after-send") or a fault
	// ("publish-timeout-stored").
	ID   string
	Kind PointKind
	// Description says in a line what happens at the point.
	Description string
	// Faults are the faults a fault row installs.
	Faults []Fault
	// Relays, if not 0, is how many relays the row runs (a stall needs a
	// second relay to take over); a variant that supports fewer runs as
	// many as it supports.
	Relays int
	// MinRelays, if not 0, is how many relays the row needs to mean
	// anything (another relay must take over); a variant that supports
	// fewer shows n/a.
	MinRelays int
	// Situations are what the row exists to produce: the reference must
	// reach each in at least one run of its cell (see Situation).
	Situations []Situation
	// Services, if not 0, is how many service instances the row runs (a
	// slow commit needs a second one to commit meanwhile).
	Services int
	// Workload, if not nil, is the row's own workload instead of the
	// matrix's (a backlog needs more orders than the standard three).
	Workload []Command
	// Story, if not empty, tells what happens at the row in a few
	// sentences, for `labrun scenario ROW`.
	Story lang.Text
}

// Apply sets a fault row's faults and relays in cfg, for cfg's variant: the
// matrix cell and a replay of it run the same configuration.
func (p Point) Apply(cfg *Config) {
	cfg.Faults = p.Faults
	if p.Workload != nil {
		cfg.Workload = p.Workload
	}
	if p.Services > 0 {
		cfg.Services = p.Services
		if m := cfg.Variant.MaxServices; m > 0 {
			cfg.Services = min(cfg.Services, m)
		}
	}
	if p.Relays > 0 {
		cfg.Relays = p.Relays
		if m := cfg.Variant.MaxRelays; m > 0 {
			cfg.Relays = min(cfg.Relays, m)
		}
	}
}

// Cell is one variant at one point: the worst outcome over every run behind
// it, and the first run that showed it.
type Cell struct {
	Variant string
	Point   Point
	// Outcome is the worst outcome of the cell's runs, or
	// check.NotApplicable when no run reached the point.
	Outcome check.Outcome
	// Expected is the outcome the variant declares.
	Expected check.Outcome
	// Violations of the counterexample run.
	Violations []check.Violation
	// Counterexample is the first run that showed Outcome; nil for OK and
	// n/a.
	Counterexample *Counterexample
	// Runs is how many runs the cell took (one per occurrence of a crash
	// point).
	Runs int
	// Situations counts what the cell's runs went through, together.
	Situations map[Situation]int
	// Missteps are those of the first run of the cell that had any (an
	// error a relay or consumer should have handled itself, a crash it
	// went on from, a panic), and MisstepRun replays that run. A cell with
	// one disagrees with any declaration.
	Missteps
	MisstepRun *Counterexample
}

// Missing returns the situations the row declares that no run of the cell
// reached.
func (c Cell) Missing() []Situation {
	var out []Situation
	for _, s := range c.Point.Situations {
		if c.Situations[s] == 0 {
			out = append(out, s)
		}
	}
	return out
}

// Matches reports whether the cell agrees with the variant's declaration:
// its outcome is the one declared, no relay or consumer returned an error
// it should have handled itself (no declaration allows one: Relay.Run
// stops at it), and no process went on after its crash.
func (c Cell) Matches() bool { return c.OutcomeMatches() && !c.Missteps.Any() }

// OutcomeMatches reports whether the cell's outcome is the one declared,
// whatever errors were returned.
func (c Cell) OutcomeMatches() bool {
	if c.Outcome == check.NotApplicable {
		return c.Expected == check.OK
	}
	return c.Outcome == c.Expected
}

// Counterexample is one reproducible run that broke an invariant.
type Counterexample struct {
	Seed uint64
	// Relays is how many relays ran, when the run differs from the
	// default of one (0 otherwise).
	Relays int
	// Schedule lists the crashes and faults of the run, e.g.
	// "crash relay.after-send#2".
	Schedule []string
	// Scenario is the scenario name labrun replays it by, e.g.
	// "relay.after-send@2".
	Scenario string
	// Poll is set when the relays were polled as their production loop
	// polls them (Config.Poll).
	Poll bool
}

// Replay returns the labrun command that reproduces the counterexample;
// program runs labrun ("go run ./cmd/labrun", or a course's own).
func (c Counterexample) Replay(program, variantName string) string {
	relays := ""
	if c.Relays > 0 {
		relays = fmt.Sprintf(" --relays %d", c.Relays)
	}
	if c.Poll {
		relays += " --poll"
	}
	return fmt.Sprintf("%s scenario %s --variant %s --seed %d%s", program, c.Scenario, variantName, c.Seed, relays)
}

// Matrix describes the runs behind a crash matrix.
type Matrix struct {
	// Workload is run in every cell.
	Workload []Command
	// Seed is the seed of every run.
	Seed uint64
	// Points are the rows.
	Points []Point
	// Base adjusts the configuration of every run (relays, horizon); nil
	// keeps DefaultConfig.
	Base func(*Config)
	// Workers is how many runs go at once: 0 for every core, 1 for one
	// after the other. The results are the same, byte for byte.
	Workers int
	// FailureRows are the fault rows the failure sweep runs under as well
	// as the workload alone, so that the commits only an error path makes
	// fail too (the record of a failed publish, the count of a delivery
	// that cannot be processed, the mark of a relay whose lease ran out).
	FailureRows []string
}

// Polled returns the matrix with every relay polled as its production loop
// polls it (Config.Poll) instead of woken when its NextWake says.
func (m Matrix) Polled() Matrix {
	base := m.Base
	m.Base = func(c *Config) {
		if base != nil {
			base(c)
		}
		c.Poll = true
	}
	return m
}

// Config returns the configuration of one run of the matrix for v.
func (m Matrix) Config(v variant.Variant) Config {
	cfg := DefaultConfig(v, m.Workload, m.Seed)
	cfg.Trace = false
	if m.Base != nil {
		m.Base(&cfg)
	}
	return cfg
}

// RunCell runs every occurrence of a crash point (k = 1, 2, ... until the
// point is no longer reached), or the fault run of a fault row, and reports
// the worst outcome with the first run that showed it. Every run is made
// with one relay and again with two (unless the row fixes the relays, or
// the variant has no relay or supports only one): a second relay is what
// tests claims, leases and recovery against each other.
func (m Matrix) RunCell(v variant.Variant, p Point) (Cell, error) {
	cell := Cell{Variant: v.Name, Point: p, Expected: v.Expected(p.ID), Outcome: check.NotApplicable, Situations: map[Situation]int{}}
	worst := check.OK
	consider := func(cfg Config, res Result, sched []string, scenario string) {
		cell.Runs++
		for s, n := range res.Situations {
			cell.Situations[s] += n
		}
		cell.Outcome = max(cell.Outcome, check.OK)
		example := func() *Counterexample {
			c := &Counterexample{Seed: m.Seed, Schedule: sched, Scenario: scenario, Poll: cfg.Poll}
			if base := m.Config(v); p.Relays == 0 && cfg.Relays != base.Relays {
				c.Relays = cfg.Relays
				c.Schedule = append([]string{fmt.Sprintf("%d relays", cfg.Relays)}, sched...)
			}
			return c
		}
		if res.Outcome > worst {
			worst = res.Outcome
			cell.Outcome = worst
			cell.Violations = res.Violations
			cell.Counterexample = example()
		}
		if res.Missteps.Any() && !cell.Missteps.Any() {
			cell.Missteps, cell.MisstepRun = res.Missteps, example()
		}
	}
	for _, relays := range m.relayCounts(v, p) {
		if err := m.runCell(v, p, relays, consider); err != nil {
			return cell, err
		}
	}
	return cell, nil
}

// relayCounts returns the relay counts a cell runs with.
func (m Matrix) relayCounts(v variant.Variant, p Point) []int {
	cfg := m.Config(v)
	p.Apply(&cfg)
	counts := []int{cfg.Relays}
	if p.Relays == 0 && v.NewRelay != nil && cfg.Relays < 2 && (v.MaxRelays == 0 || v.MaxRelays >= 2) {
		counts = append(counts, 2)
	}
	return counts
}

// runCell makes the runs of one cell with the given number of relays.
func (m Matrix) runCell(v variant.Variant, p Point, relays int, consider func(Config, Result, []string, string)) error {
	if p.Kind == KindFault {
		cfg := m.Config(v)
		p.Apply(&cfg)
		cfg.Relays = relays
		if relays < p.MinRelays {
			return nil // the row needs more relays than the variant supports: n/a
		}
		res, err := Run(cfg)
		if err != nil {
			return err
		}
		if stalls, kills := count(p.Faults, FaultStall)+count(p.Faults, FaultSlowCommit), count(p.Faults, FaultKill); res.Stalls < stalls || res.Kills < kills {
			return nil // the process never got there, or was not alive: n/a
		}
		var sched []string
		for _, f := range p.Faults {
			sched = append(sched, "fault "+f.String())
		}
		consider(cfg, res, sched, p.ID)
		return nil
	}
	for k := 1; ; k++ {
		cfg := m.Config(v)
		cfg.Relays = relays
		cfg.Crashes = []Crash{{Point: p.ID, Occurrence: k}}
		res, err := Run(cfg)
		if err != nil {
			return err
		}
		if len(res.Fired) == 0 {
			return nil // the point is reached fewer than k times
		}
		consider(cfg, res, []string{"crash " + cfg.Crashes[0].String()}, fmt.Sprintf("%s@%d", p.ID, k))
	}
}

func count(fs []Fault, kind FaultKind) int {
	n := 0
	for _, f := range fs {
		if f.Kind == kind {
			n++
		}
	}
	return n
}

// Run runs every cell of the matrix for every variant and returns them
// variant by variant, point by point. Cells run in parallel (Workers).
func (m Matrix) Run(variants []variant.Variant) ([]Cell, error) {
	cells := make([]Cell, len(variants)*len(m.Points))
	err := Parallel(len(cells), m.Workers, func(i int) error {
		v, p := variants[i/len(m.Points)], m.Points[i%len(m.Points)]
		c, err := m.RunCell(v, p)
		if err != nil {
			return fmt.Errorf("matrix %s/%s: %w", v.Name, p.ID, err)
		}
		cells[i] = c
		return nil
	})
	if err != nil {
		return nil, err
	}
	return cells, nil
}

// ParseScenarioPoint splits a matrix scenario name "point@k" into the point
// id and occurrence; a name without "@k" has occurrence 1.
func ParseScenarioPoint(name string) (string, int, error) {
	id, k, found := strings.Cut(name, "@")
	if !found {
		return id, 1, nil
	}
	var n int
	if _, err := fmt.Sscanf(k, "%d", &n); err != nil || n < 1 || fmt.Sprint(n) != k {
		return "", 0, fmt.Errorf("scenario %q: occurrence %q is not a whole number >= 1", name, k)
	}
	return id, n, nil
}

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
	Outcome    check.Outcome
	Violations []check.Violation
	Unsafe     []string
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
	if res.Outcome == check.OK && len(res.Unsafe) == 0 && len(missing) == 0 && !res.Missteps.Any() {
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

// FailureSweep runs v on the matrix's workload with one commit failure
// at every commit its run makes (each commit boundary it crosses, each
// occurrence), with one relay and again with two as the matrix's cells,
// and again under each of FailureRows' faults: the error path a commit
// that does not reach the database takes, at every place it can be taken.
// A run fails when it is not OK, breaks a safety property, never reaches
// FailureReported (the process that made the commit went on as if it had
// committed), or a relay or consumer returned an error other than the
// failed commit: Relay.Run stops at a step's error, so what the process
// can handle itself (a broker's error, a claim conflict, a lease another
// relay took over) must not be one.
func (m Matrix) FailureSweep(v variant.Variant) (Sweep, error) {
	sw := Sweep{Variant: v.Name}
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
	var planned []Fault
	for _, b := range CommitBoundaries {
		process, effect, _ := strings.Cut(b, ".")
		for k := 1; k <= base.Reached[process+".before-"+effect]; k++ {
			planned = append(planned, Fault{Kind: FaultCommitFailure, Point: b, Occurrence: k})
		}
	}
	sw.Points = max(sw.Points, len(planned))
	failures := make([]*SweepFailure, len(planned))
	err = Parallel(len(planned), m.Workers, func(i int) error {
		cfg := config()
		cfg.Faults = append(cfg.Faults, planned[i])
		res, err := Run(cfg)
		if err != nil || res.CommitFailures != 1 {
			return err
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
