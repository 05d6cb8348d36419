package sqlitelab

import (
	"fmt"
	"slices"

	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// plannedCell is a cell with the simulator's side of it computed and its
// runs on real parts planned.
type plannedCell struct {
	variant Variant
	row     Row
	sim     sim.Cell
	// counts are the relay counts of the cell's runs.
	counts []int
	// race: the cell's verdict on real parts is a race's.
	race bool
	// route is the simulator's routing of the workload to two service
	// instances (nil with one).
	route []string
}

// plan computes the simulator's cell and plans the real runs.
func (m *matrixRun) plan(v Variant, row Row) (plannedCell, error) {
	pc := plannedCell{variant: v, row: row}
	simV, err := scenarios.FindVariant(v.simName())
	if err != nil {
		return pc, err
	}
	p, err := scenarios.FindPoint(row.ID)
	if err != nil {
		p = sim.Point{ID: row.ID, Kind: sim.KindCrash} // a point the matrix does not name
	}
	matrix := scenarios.Matrix()
	if pc.sim, err = matrix.RunCell(simV, p); err != nil {
		return pc, err
	}
	pc.counts = m.relayCounts(v, simV, row)
	if slices.Contains(pc.counts, 3) && row.Kind == sim.KindCrash {
		if err := pc.withThreeRelays(matrix, simV, p); err != nil {
			return pc, err
		}
	}
	for _, n := range pc.counts {
		pc.race = pc.race || (v.race != nil && v.race(row.ID, n))
	}
	if row.Services == 2 {
		if pc.route, err = simRoute(v, row); err != nil {
			return pc, err
		}
	}
	return pc, nil
}

// relayCounts returns the relay counts of a cell's runs: one and two, as
// the simulator's matrix (and three with MaxRelays 3), as many as the
// variant allows; for a fault row that sets its relays, the row's.
func (m *matrixRun) relayCounts(v Variant, simV variant.Variant, row Row) []int {
	if simV.NewRelay == nil {
		return []int{1} // the variant has no relay: one process that idles
	}
	if row.Kind == sim.KindFault && row.Relays > 0 {
		if cfg, ok := row.config(v, 1); ok {
			return []int{cfg.Relays}
		}
		return nil
	}
	var counts []int
	for n := 1; n <= m.cfg.MaxRelays; n++ {
		counts = append(counts, n)
	}
	return v.relays(counts)
}

// withThreeRelays adds the simulator's runs with three relays to its cell.
func (pc *plannedCell) withThreeRelays(matrix sim.Matrix, simV variant.Variant, p sim.Point) error {
	matrix.Base = func(c *sim.Config) { c.Relays = 3 }
	three, err := matrix.RunCell(simV, p)
	if err != nil {
		return err
	}
	if three.Outcome > pc.sim.Outcome {
		pc.sim.Outcome, pc.sim.Violations, pc.sim.Counterexample = three.Outcome, three.Violations, three.Counterexample
		if ce := pc.sim.Counterexample; ce != nil {
			ce.Relays = 3
		}
	}
	pc.sim.Runs += three.Runs
	return nil
}

// simRun is the simulator's counterexample as a real run's configuration.
func (pc plannedCell) simRun() (*Config, error) {
	ce := pc.sim.Counterexample
	if ce == nil {
		return nil, nil
	}
	if pc.row.Kind == sim.KindFault {
		cfg, _ := pc.row.config(pc.variant, 1)
		return &cfg, nil
	}
	if len(ce.Crashes) != 1 {
		return nil, fmt.Errorf("%s at %s: the simulator's counterexample %q is no crash at one occurrence", pc.variant.Name, pc.row.ID, ce.Name())
	}
	return &Config{Variant: pc.variant.Name, Relays: max(ce.Relays, 1), Crash: pc.row.ID, Occurrence: ce.Crashes[0].Occurrence}, nil
}

// want is the verdict the real parts must give, and why it differs from
// the simulator's, if it does.
func (pc plannedCell) want() (variant.Outcome, string) {
	if d, ok := pc.variant.differs[pc.row.ID]; ok {
		return d.outcome, d.why
	}
	return pc.sim.Outcome, ""
}

// cost estimates how long the cell takes, in runs of a crash point: what
// the shards are balanced by.
func (m *matrixRun) cost(pc plannedCell) int {
	runs := 1
	switch {
	case pc.row.Kind == sim.KindFault:
		runs = 4 // a stall lasts a second or more
	case m.cfg.Full:
		runs = pc.sim.Runs + len(pc.counts) // and the run that finds no further occurrence
	case pc.sim.Outcome == NotApplicable:
		runs = 0
	}
	if pc.race {
		runs *= m.cfg.Races
	}
	return runs
}

// shard returns the indices of the cells this shard runs: every cell
// without shards; with them, the cells the split by cost gives the shard
// (shard.Shard.ByCost: the costliest cell first, to the shard with the
// least so far), the same in every shard. It is not the split by number
// of labrun explore and labwhy (shard.Shard.Owns, whose items cost about
// the same): a stall's cell costs four runs of a crash point and a cell
// the simulator never reaches none, and the split by cost is what makes
// the shards take about as long (which cells a shard's JSON holds is
// this split's).
func (m *matrixRun) shard() []int {
	costs := make([]int, len(m.cells))
	for i, pc := range m.cells {
		costs[i] = m.cost(pc)
	}
	return m.cfg.Shard.ByCost(costs)
}
