package sqlitelab

import (
	"fmt"
	"slices"

	"outboxlab/sim"
	"outboxlab/variant"
)

// runCell runs a planned cell on real parts: once, or, for a race, once
// per seed of its repetitions.
func (m *matrixRun) runCell(pc plannedCell, postgres string) (Cell, error) {
	cell := Cell{Variant: pc.variant.Name, Point: pc.row.ID, Outcome: NotApplicable, Sim: pc.sim.Outcome, OnPostgres: postgres != ""}
	cell.Want, cell.Why = pc.want()
	if ce := pc.sim.Counterexample; ce != nil {
		cell.SimReplay = ce.Command("go run ./cmd/labrun")
	}
	var err error
	if cell.SimRun, err = pc.simRun(); err != nil {
		return cell, err
	}
	if cell.SimRun != nil {
		m.fill(cell.SimRun, pc, postgres, 1)
	}
	if !m.cfg.Full && pc.sim.Outcome == NotApplicable {
		cell.NotRun = true
		return cell, nil
	}
	reps := 1
	if pc.race {
		reps = m.cfg.Races
		cell.Race = &Race{N: reps, Seeds: map[variant.Outcome][]uint64{}}
	}
	reached := map[sim.Situation]bool{}
	for seed := uint64(1); seed <= uint64(reps); seed++ {
		outcome, err := m.repetition(pc, postgres, seed, &cell, reached)
		if err != nil {
			return cell, err
		}
		if cell.Race != nil {
			cell.Race.Seeds[outcome] = append(cell.Race.Seeds[outcome], seed)
		}
	}
	if pc.variant.Name == "outbox" && cell.Outcome != NotApplicable {
		for _, s := range pc.row.Situations {
			if !reached[s] {
				cell.Missing = append(cell.Missing, s)
			}
		}
	}
	return cell, nil
}

// repetition runs the cell's runs at the matrix's depth with one seed, and
// returns the worst outcome they came to.
func (m *matrixRun) repetition(pc plannedCell, postgres string, seed uint64, cell *Cell, reached map[sim.Situation]bool) (variant.Outcome, error) {
	worst := NotApplicable
	consider := func(rc Config, res Result) {
		cell.Runs++
		for _, s := range res.Situations {
			reached[s] = true
		}
		if res.Outcome > worst {
			worst = res.Outcome
		}
		if res.Outcome > cell.Outcome {
			cell.Outcome = res.Outcome
			if res.Outcome != variant.OK {
				cell.Worst, cell.WorstConfig = &res, rc
			}
		}
	}
	for _, rc := range m.runsOf(pc) {
		for k := rc.Occurrence; ; k++ {
			rc.Occurrence = k
			m.fill(&rc, pc, postgres, seed)
			res, err := Run(rc)
			if err != nil {
				return worst, fmt.Errorf("%s at %s with %d relay(s), seed %d: %w", pc.variant.Name, describe(rc), rc.Relays, seed, err)
			}
			if (rc.Crash != "" && !res.Fired) || res.Stalls < len(rc.Stalls) {
				break // the point is not reached again, or the stall never happened: n/a
			}
			consider(rc, res)
			if rc.Crash == "" || !m.cfg.Full {
				break
			}
		}
	}
	return worst, nil
}

// runsOf returns the runs of a cell at the matrix's depth: a fault row's
// run with each relay count; at full depth, every relay count from the first occurrence on
// (repetition goes on until the point is no longer reached); otherwise the
// run that decides the cell: the simulator's counterexample where its
// cell fails, the first occurrence with the most relays where it holds.
func (m *matrixRun) runsOf(pc plannedCell) []Config {
	if pc.row.Kind == sim.KindFault {
		var runs []Config
		for _, n := range pc.counts { // none: the row needs more relays than the variant allows
			cfg, _ := pc.row.config(pc.variant, n)
			runs = append(runs, cfg)
		}
		return runs
	}
	point := Config{Variant: pc.variant.Name, Crash: pc.row.ID, Occurrence: 1}
	if m.cfg.Full {
		var runs []Config
		for _, n := range pc.counts {
			point.Relays = n
			runs = append(runs, point)
		}
		return runs
	}
	if rc, err := pc.simRun(); err == nil && rc != nil && slices.Contains(pc.counts, rc.Relays) {
		return []Config{*rc}
	}
	point.Relays = slices.Max(pc.counts)
	return []Config{point}
}

// fill completes a run's configuration for the matrix.
func (m *matrixRun) fill(rc *Config, pc plannedCell, postgres string, seed uint64) {
	rc.Program, rc.Args, rc.Postgres, rc.Seed = m.cfg.Program, m.cfg.Args, postgres, seed
	if pc.row.Services == 2 {
		rc.Services, rc.Route = 2, pc.route
	}
}

// describe names a run's point: "relay.after-send@2", or the fault row's
// stall.
func describe(rc Config) string {
	if rc.Crash != "" {
		return fmt.Sprintf("%s@%d", rc.Crash, rc.Occurrence)
	}
	if len(rc.Stalls) > 0 {
		s := rc.Stalls[0]
		return fmt.Sprintf("a stall of %s at %s for %s", s.Process, s.Point, s.For)
	}
	return "no crash"
}
