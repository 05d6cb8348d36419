package sim

import (
	"fmt"

	"outboxlab/lang"
	"outboxlab/sim/check"
	"outboxlab/variant"
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
	Description lang.Text
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
	// Like, if not empty, is the row this one adds to (an outage that
	// outlasts a restart adds to broker-outage): a variant that declares
	// nothing for this row is expected to do here what it declares there.
	// What fails the outage fails it the more; a variant that passes the
	// outage and not this row is what the row is for.
	Like string
}

// Expected returns the outcome v declares for the row: for the row
// itself, or else for the row it adds to (Like).
func (p Point) Expected(v variant.Variant) variant.Outcome {
	if _, ok := v.Expect[p.ID]; ok || p.Like == "" {
		return v.Expected(p.ID)
	}
	return v.Expected(p.Like)
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
	// variant.NotApplicable when no run reached the point.
	Outcome variant.Outcome
	// Expected is the outcome the variant declares.
	Expected variant.Outcome
	// Violations of the counterexample run.
	Violations []check.Violation
	// Counterexample is the first run that showed Outcome; nil for OK and
	// n/a.
	Counterexample *RunID
	// Runs is how many runs the cell took (one per occurrence of a crash
	// point).
	Runs int
	// Relays is the most relays any of its runs started: 0 for a variant
	// without a relay, 1 for one that supports only one (Variant.MaxRelays)
	// or a row that runs one.
	Relays int
	// Situations counts what the cell's runs went through, together.
	Situations map[Situation]int
	// Missteps are those of the first run of the cell that had any (an
	// error a relay or consumer should have handled itself, a crash it
	// went on from, a panic), and MisstepRun replays that run. A cell with
	// one disagrees with any declaration.
	Missteps
	MisstepRun *RunID
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
	if c.Outcome == variant.NotApplicable {
		return c.Expected == variant.OK
	}
	return c.Outcome == c.Expected
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
	// CommitBoundaries are the boundaries, every variant's, whose effect
	// is a database commit: what the failure sweep fails. The catalogue
	// above the simulator names them (scenarios.CommitBoundaries).
	CommitBoundaries []string
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
	cell := Cell{Variant: v.Name, Point: p, Expected: p.Expected(v), Outcome: variant.NotApplicable, Situations: map[Situation]int{}}
	worst := variant.OK
	consider := func(cfg Config, res Result, sched []string) {
		cell.Runs++
		if v.NewRelay != nil {
			cell.Relays = max(cell.Relays, cfg.Relays)
		}
		for s, n := range res.Situations {
			cell.Situations[s] += n
		}
		cell.Outcome = max(cell.Outcome, variant.OK)
		example := func() *RunID {
			c := &RunID{Variant: v.Name, Crashes: cfg.Crashes, Seed: m.Seed, Schedule: sched, Poll: cfg.Poll}
			if p.Kind == KindFault {
				c.Row = p.ID // a crash point's run is its crash (RunID.Row)
			}
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
func (m Matrix) runCell(v variant.Variant, p Point, relays int, consider func(Config, Result, []string)) error {
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
		consider(cfg, res, sched)
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
		consider(cfg, res, []string{"crash " + cfg.Crashes[0].String()})
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
