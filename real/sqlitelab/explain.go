package sqlitelab

import (
	"fmt"
	"slices"
	"strings"

	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// Replay is the labrun-real command that runs rc again on real parts (in
// real/): the same variant, point, relays and seed. The seed fixes the
// run's own choices; the interleaving is the operating system's, so a
// race may come out otherwise.
func Replay(rc Config) string {
	point := describePoint(rc)
	cmd := fmt.Sprintf("go run ./cmd/labrun-real run --variant %s --point %s --relays %d --seed %d", rc.Variant, point, rc.Relays, rc.Seed)
	if rc.Postgres != "" {
		cmd += " --postgres"
	}
	return cmd
}

// describePoint names the matrix row a run belongs to: "relay.after-send@2",
// or the fault row whose stalls it has.
func describePoint(rc Config) string {
	if rc.Crash != "" {
		return fmt.Sprintf("%s@%d", rc.Crash, rc.Occurrence)
	}
	for _, row := range faultRows {
		if len(row.Stalls) > 0 && len(rc.Stalls) > 0 && row.Stalls[0] == rc.Stalls[0] {
			return row.ID
		}
	}
	return "none"
}

// SimTimeline runs the simulator's run that corresponds to a real run (same
// variant, crash point and occurrence or fault row, relays) and returns its
// timeline.
func SimTimeline(rc Config) ([]string, error) {
	res, err := simTrace(rc)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, e := range res.Trace {
		lines = append(lines, e.String())
	}
	lines = append(lines, "verdict: "+res.Outcome.String())
	for _, v := range res.Violations {
		lines = append(lines, "  "+v.String())
	}
	return lines, nil
}

// simTrace runs the simulator's run that corresponds to a real run, with
// its trace.
func simTrace(rc Config) (sim.Result, error) {
	port, err := FindVariant(rc.Variant)
	if err != nil {
		return sim.Result{}, err
	}
	v, err := scenarios.FindVariant(port.simName())
	if err != nil {
		return sim.Result{}, err
	}
	cfg, err := scenarios.Config(simRun(rc, v.Name), v)
	if err != nil {
		cfg = scenarios.Matrix().Config(v) // a run at no row: the matrix's workload alone
	}
	cfg.Trace = true
	return sim.Run(cfg)
}

// simRun is the simulator's run that corresponds to a real run: the
// matrix's, at its crash point and occurrence with its relays, or under
// its fault row with the row's relays.
func simRun(rc Config, simVariant string) sim.RunID {
	run := sim.RunID{Variant: simVariant, Seed: scenarios.MatrixSeed}
	if rc.Crash != "" {
		run.Crashes, run.Relays = []sim.Crash{{Point: rc.Crash, Occurrence: rc.Occurrence}}, rc.Relays
		return run
	}
	run.Row = describePoint(rc)
	return run
}

// Explain shows a disagreeing cell's run on real parts and the same run in
// the simulator, timeline beside timeline: the real parts' worst run, or,
// if the simulator's is worse, its run played on real parts again.
func Explain(c Cell) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s at %s: real parts %s, simulator %s", c.Variant, c.Point, c.Outcome, c.Sim)
	if c.Want != c.Sim {
		fmt.Fprintf(&b, ", declared on real parts %s (%s)", c.Want, c.Why)
	}
	b.WriteString("\n")
	if c.Race != nil {
		fmt.Fprintf(&b, "a race: %s\n", c.RaceRates())
	}
	if len(c.Missing) > 0 {
		fmt.Fprintf(&b, "the row exists to produce %s, and the reference's runs never reached it\n", joinSituations(c.Missing))
	}
	rerun := fmt.Sprintf("go run ./cmd/labrun-real matrix --variant %s --point %s", c.Variant, c.Point)
	if c.OnPostgres {
		rerun += " --postgres"
	}
	fmt.Fprintf(&b, "rerun the cell on real parts (in real/): %s\n", rerun)
	rc := c.WorstConfig
	shown := c.Worst
	if shown == nil && c.SimRun != nil {
		rc = *c.SimRun
		res, err := Run(rc)
		if err != nil {
			fmt.Fprintf(&b, "the simulator's run on real parts: %v\n", err)
			return b.String()
		}
		shown = &res
	}
	if shown == nil {
		return b.String() // n/a against OK: there is no run to show
	}
	fmt.Fprintf(&b, "\non real parts, %s with %d relay(s), seed %d: %s\nreplay: %s\n", describePoint(rc), rc.Relays, rc.Seed, shown.Outcome, Replay(rc))
	for _, v := range shown.Violations {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	for _, l := range shown.Timeline {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	lines, err := SimTimeline(rc)
	if err != nil {
		fmt.Fprintf(&b, "the simulator: %v\n", err)
		return b.String()
	}
	fmt.Fprintf(&b, "\nin the simulator (replay: %s):\n", c.SimReplay)
	for _, l := range lines {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	return b.String()
}

// RaceRates says how a race cell's repetitions came out, the worst
// outcome first: "UNSAFE in 2 of 3 runs (seeds 1, 3); OK in 1 of 3 runs
// (seed 2)"; "" for a cell that is no race.
func (c Cell) RaceRates() string {
	if c.Race == nil {
		return ""
	}
	var outcomes []variant.Outcome
	for o := range c.Race.Seeds {
		outcomes = append(outcomes, o)
	}
	slices.Sort(outcomes)
	slices.Reverse(outcomes)
	var parts []string
	for _, o := range outcomes {
		parts = append(parts, c.Race.Rate(o))
	}
	return strings.Join(parts, "; ")
}

func joinSituations(ss []sim.Situation) string {
	var out []string
	for _, s := range ss {
		out = append(out, string(s))
	}
	return strings.Join(out, ", ")
}
