package sqlitelab

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"outboxlab/lab/check"
	"outboxlab/scenarios"
	"outboxlab/sim"
)

// NotApplicable is the verdict of a cell whose crash point the variant
// never reaches (labrun's n/a).
const NotApplicable = check.NotApplicable

// Cell is one variant at one crash point on real parts, beside the
// simulator's verdict of the same cell.
type Cell struct {
	Variant, Point string
	// Outcome is the worst outcome over every run of the cell (every
	// occurrence of the point, with one relay and with two where the
	// simulator runs two), or NotApplicable.
	Outcome check.Outcome
	// Sim is the simulator's outcome of the cell.
	Sim check.Outcome
	// Runs is how many runs on real parts the cell took.
	Runs int
	// OnPostgres says the order database was on PostgreSQL.
	OnPostgres bool
	// Worst is the first run that showed Outcome, with its configuration.
	Worst       *Result
	WorstConfig Config
	// SimReplay is the labrun command that replays the simulator's worst
	// run, and SimRun that run as a real run's configuration.
	SimReplay string
	SimRun    *Config
}

// Agrees reports whether the real parts and the simulator give the cell the
// same verdict.
func (c Cell) Agrees() bool { return c.Outcome == c.Sim }

// Points are the crash points the real parts run: every crash point of the
// matrix. (The matrix's fault rows need a broker that misbehaves on purpose,
// a stalled or skewed relay or a held-open commit: the simulator's tools,
// not a kill's.)
func Points() []string { return scenarios.CrashPoints }

// MatrixConfig says which cells to run and how to start children.
type MatrixConfig struct {
	// Variants default to every variant the real parts express.
	Variants []string
	// Points default to Points().
	Points  []string
	Program string
	Args    []string
	// Workers is how many cells run at once; 0 means 4 (a run mostly waits
	// for its processes).
	Workers int
	// Postgres, when set, are PostgreSQL databases for the order database
	// (Config.Postgres): a cell takes one for its runs, so at most
	// len(Postgres) cells run at once.
	Postgres []string
}

// Matrix runs every cell on real parts and the same cell in the simulator,
// variant by variant, point by point.
func Matrix(cfg MatrixConfig) ([]Cell, error) {
	if len(cfg.Variants) == 0 {
		cfg.Variants = MatrixVariants(len(cfg.Postgres) > 0)
	}
	if len(cfg.Points) == 0 {
		cfg.Points = Points()
	}
	for _, name := range cfg.Variants {
		v, err := FindVariant(name)
		if err != nil {
			return nil, err
		}
		if v.race {
			return nil, fmt.Errorf("variant %q: %w: its verdict on real parts is a race's, which a crash point does not decide (the matrix runs: %s)", name, ErrNotInMatrix, strings.Join(VariantNames(), ", "))
		}
		if v.cdc && len(cfg.Postgres) == 0 {
			return nil, fmt.Errorf("variant %q: %w on SQLite: its relay reads PostgreSQL's WAL (labrun-real matrix --postgres)", name, ErrNotInMatrix)
		}
	}
	for _, p := range cfg.Points {
		if !slices.Contains(Points(), p) {
			return nil, fmt.Errorf("%w crash point %q (valid: %s)", ErrUnknown, p, strings.Join(Points(), ", "))
		}
	}
	if cfg.Workers == 0 {
		cfg.Workers = 4
	}
	databases := make(chan string, len(cfg.Postgres)) // each held by one cell at a time
	for _, dsn := range cfg.Postgres {
		databases <- dsn
	}
	if len(cfg.Postgres) > 0 {
		cfg.Workers = min(cfg.Workers, len(cfg.Postgres))
	}
	cells := make([]Cell, len(cfg.Variants)*len(cfg.Points))
	err := sim.Parallel(len(cells), cfg.Workers, func(i int) error {
		postgres := ""
		if len(cfg.Postgres) > 0 {
			postgres = <-databases
			defer func() { databases <- postgres }()
		}
		var err error
		cells[i], err = runCell(cfg, postgres, cfg.Variants[i/len(cfg.Points)], cfg.Points[i%len(cfg.Points)])
		return err
	})
	return cells, err
}

// runCell runs one cell as the simulator's matrix does: every occurrence
// of the point until it is no longer reached, with each relay count the
// simulator uses for the variant.
func runCell(cfg MatrixConfig, postgres, variantName, point string) (Cell, error) {
	cell := Cell{Variant: variantName, Point: point, Outcome: NotApplicable, OnPostgres: postgres != ""}
	v, err := FindVariant(variantName)
	if err != nil {
		return cell, err
	}
	simVariant, err := scenarios.FindVariant(v.simName())
	if err != nil {
		return cell, err
	}
	p, err := scenarios.FindPoint(point)
	if err != nil {
		return cell, err
	}
	m := scenarios.Matrix()
	simCell, err := m.RunCell(simVariant, p)
	if err != nil {
		return cell, err
	}
	cell.Sim = simCell.Outcome
	if ce := simCell.Counterexample; ce != nil {
		cell.SimReplay = ce.Replay("go run ./cmd/labrun", simVariant.Name)
		_, at, _ := strings.Cut(ce.Scenario, "@")
		k, err := strconv.Atoi(at)
		if err != nil {
			return cell, fmt.Errorf("%s at %s: the simulator's counterexample %q names no occurrence", variantName, point, ce.Scenario)
		}
		cell.SimRun = &Config{Variant: variantName, Relays: max(ce.Relays, 1), Crash: point, Occurrence: k, Program: cfg.Program, Args: cfg.Args, Postgres: postgres}
	}
	worst := check.OK
	for _, relays := range relayCounts(simVariant.NewRelay != nil, simVariant.MaxRelays) {
		for k := 1; ; k++ {
			rc := Config{Variant: variantName, Relays: relays, Crash: point, Occurrence: k, Program: cfg.Program, Args: cfg.Args, Postgres: postgres}
			res, err := Run(rc)
			if err != nil {
				return cell, fmt.Errorf("%s at %s@%d with %d relay(s): %w", variantName, point, k, relays, err)
			}
			if !res.Fired {
				break
			}
			cell.Runs++
			cell.Outcome = max(cell.Outcome, check.OK)
			if res.Outcome > worst {
				worst = res.Outcome
				cell.Outcome = worst
				cell.Worst, cell.WorstConfig = &res, rc
			}
		}
	}
	return cell, nil
}

// relayCounts are the relay counts the simulator's matrix runs a crash
// point with: one, and two for a variant with a relay that allows two.
func relayCounts(hasRelay bool, maxRelays int) []int {
	if hasRelay && (maxRelays == 0 || maxRelays >= 2) {
		return []int{1, 2}
	}
	return []int{1}
}

// SimTimeline runs the simulator's run that corresponds to a real run (same
// variant, crash point, occurrence and relays) and returns its timeline.
func SimTimeline(rc Config) ([]string, error) {
	port, err := FindVariant(rc.Variant)
	if err != nil {
		return nil, err
	}
	v, err := scenarios.FindVariant(port.simName())
	if err != nil {
		return nil, err
	}
	m := scenarios.Matrix()
	cfg := m.Config(v)
	cfg.Trace = true
	cfg.Relays = rc.Relays
	cfg.Crashes = []sim.Crash{{Point: rc.Crash, Occurrence: rc.Occurrence}}
	res, err := sim.Run(cfg)
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

// Explain shows a disagreeing cell's run on real parts and the same run in
// the simulator, timeline beside timeline: the real parts' worst run, or,
// if the simulator's is worse, its run played on real parts again.
func Explain(c Cell) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s at %s: real parts %s, simulator %s\n", c.Variant, c.Point, c.Outcome, c.Sim)
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
	fmt.Fprintf(&b, "\non real parts, %s@%d with %d relay(s): %s\n", rc.Crash, rc.Occurrence, rc.Relays, shown.Outcome)
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
