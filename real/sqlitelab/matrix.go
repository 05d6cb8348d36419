package sqlitelab

import (
	"fmt"
	"os"
	"strings"

	"outboxlab/internal/shard"
	"outboxlab/sim"
	"outboxlab/variant"
)

// NotApplicable is the verdict of a cell whose crash point the variant
// never reaches (labrun's n/a).
const NotApplicable = variant.NotApplicable

// MatrixConfig says which cells to run, how deep, and how to start
// children.
type MatrixConfig struct {
	// Variants default to DefaultVariants.
	Variants []string
	// Points default to every row of the backend (Points).
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
	// MaxRelays is the most relays a crash point's cell runs with: 2 (the
	// default, as the simulator's matrix: one relay, then two) or 3 (one,
	// two and three; the simulator's cell then runs three as well).
	MaxRelays int
	// Full runs every cell at full depth: every occurrence of its point
	// with every relay count, the cells the simulator never reaches too,
	// and each race cell Races times. Without it a cell runs the runs that
	// decide it (see Depth in doc.go): the simulator's counterexample where
	// the simulator's cell fails, the first occurrence with the most relays
	// where it holds, nothing where the simulator never reaches the point.
	Full bool
	// Races is how often a race cell is run, each time with the next seed;
	// 0 means 3, or 10 with Full.
	Races int
	// Shard runs one shard of the cells (the zero Shard: all of them),
	// the cells split by their estimated cost so that the shards take
	// about as long (shard.Shard.ByCost); the other shards' cells are not
	// in the result. Merged (labrun-real merge), the shards' cells are the
	// unsharded matrix's.
	Shard shard.Shard
}

// EnvFull is the environment variable that makes the real module's
// differential tests run their matrices at full depth (MatrixConfig.Full):
// OUTBOXLAB_REAL_FULL=1 go test ./... in real/, a scheduled job's run.
const EnvFull = "OUTBOXLAB_REAL_FULL"

// FullDepth reports whether EnvFull asks for full depth.
func FullDepth() bool { return os.Getenv(EnvFull) != "" }

// Cell is one variant at one row on real parts, beside the simulator's
// verdict of the same cell.
type Cell struct {
	Variant, Point string
	// Outcome is the worst outcome over every run of the cell, or
	// NotApplicable.
	Outcome variant.Outcome
	// Sim is the simulator's outcome of the cell; Want is the verdict the
	// real parts must give: Sim, or the variant's declared difference,
	// whose reason is Why.
	Sim, Want variant.Outcome
	Why       string
	// Runs is how many runs on real parts the cell took; 0 for a cell the
	// matrix did not run (NotRun).
	Runs int
	// NotRun: the simulator never reaches the point, and the matrix ran at
	// its default depth, which trusts that.
	NotRun bool
	// OnPostgres says the order database was on PostgreSQL.
	OnPostgres bool
	// Race is set for a cell whose verdict a race decides: how each of its
	// repetitions came out.
	Race *Race
	// Missing are the situations the row exists to produce that the
	// reference's cell never reached.
	Missing []sim.Situation
	// Worst is the first run that showed Outcome, with its configuration.
	Worst       *Result
	WorstConfig Config
	// SimReplay is the labrun command that replays the simulator's worst
	// run, and SimRun that run as a real run's configuration.
	SimReplay string
	SimRun    *Config
}

// Race is how the repetitions of a race cell came out: each repetition
// runs the cell's runs with its own seed (1, 2, ...).
type Race struct {
	// Seeds are the repetitions' seeds, by the outcome each came to.
	Seeds map[variant.Outcome][]uint64
	N     int
}

// Rate says how often the outcome showed: "UNSAFE in 2 of 3 runs (seeds
// 1, 3)".
func (r Race) Rate(outcome variant.Outcome) string {
	var seeds []string
	for _, s := range r.Seeds[outcome] {
		seeds = append(seeds, fmt.Sprint(s))
	}
	if len(seeds) == 0 {
		return fmt.Sprintf("%s in 0 of %d runs", outcome, r.N)
	}
	return fmt.Sprintf("%s in %d of %d runs (seed%s %s)", outcome, len(seeds), r.N,
		map[bool]string{true: "", false: "s"}[len(seeds) == 1], strings.Join(seeds, ", "))
}

// Agrees reports whether the real parts give the cell the verdict they
// must (Want), and the reference reached what the row exists for. A race
// cell agrees when each repetition came to OK, to Want or to the race's
// UNSAFE: whether the race shows in a run is the operating system's
// schedule, and the cell states how often it did (Race.Rate); a row that
// stages the race (relay-restart, stall) is what must show it every time.
func (c Cell) Agrees() bool {
	if len(c.Missing) > 0 {
		return false
	}
	if c.Race == nil {
		return c.Outcome == c.Want
	}
	for o := range c.Race.Seeds {
		if o != variant.OK && o != variant.Unsafe && o != c.Want && o != NotApplicable {
			return false
		}
	}
	return true
}

// Matrix runs every cell on real parts beside the same cell in the
// simulator, variant by variant, row by row (the cells of one shard, with
// Shard).
func Matrix(cfg MatrixConfig) ([]Cell, error) {
	m, err := newMatrixRun(cfg)
	if err != nil {
		return nil, err
	}
	mine := m.shard()
	databases := make(chan string, len(m.cfg.Postgres)) // each held by one cell at a time
	for _, dsn := range m.cfg.Postgres {
		databases <- dsn
	}
	cells := make([]Cell, len(mine))
	err = sim.Parallel(len(mine), m.cfg.Workers, func(i int) error {
		postgres := ""
		if len(m.cfg.Postgres) > 0 {
			postgres = <-databases
			defer func() { databases <- postgres }()
		}
		var err error
		cells[i], err = m.runCell(m.cells[mine[i]], postgres)
		return err
	})
	return cells, err
}

// matrixRun is a matrix being run: its configuration, and every cell with
// the simulator's side of it.
type matrixRun struct {
	cfg      MatrixConfig
	postgres bool
	cells    []plannedCell
}

// newMatrixRun checks the configuration and computes the simulator's side
// of every cell.
func newMatrixRun(cfg MatrixConfig) (*matrixRun, error) {
	m := &matrixRun{cfg: cfg, postgres: len(cfg.Postgres) > 0}
	if len(m.cfg.Variants) == 0 {
		m.cfg.Variants = DefaultVariants(m.postgres, m.cfg.Full)
	}
	if len(m.cfg.Points) == 0 {
		m.cfg.Points = Points(m.postgres)
	}
	if m.cfg.Workers == 0 {
		m.cfg.Workers = 4
	}
	if m.postgres {
		m.cfg.Workers = min(m.cfg.Workers, len(m.cfg.Postgres))
	}
	if m.cfg.MaxRelays == 0 {
		m.cfg.MaxRelays = 2
	}
	if m.cfg.Races == 0 {
		m.cfg.Races = map[bool]int{false: 3, true: 10}[m.cfg.Full]
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	for _, name := range m.cfg.Variants {
		v, _ := FindVariant(name)
		for _, id := range m.cfg.Points {
			row, _ := FindRow(id, m.postgres)
			pc, err := m.plan(v, row)
			if err != nil {
				return nil, err
			}
			m.cells = append(m.cells, pc)
		}
	}
	return m, nil
}

// check names what is wrong with the configuration.
func (m *matrixRun) check() error {
	for _, name := range m.cfg.Variants {
		v, err := FindVariant(name)
		if err != nil {
			return err
		}
		if v.postgres && !m.postgres {
			return fmt.Errorf("variant %q: %w on SQLite: it runs on PostgreSQL only (labrun-real matrix --postgres)", name, ErrNotInMatrix)
		}
		if v.sqliteHides != "" && !m.postgres {
			return fmt.Errorf("variant %q: %w on SQLite: %s (labrun-real matrix --postgres)", name, ErrNotInMatrix, v.sqliteHides)
		}
	}
	for _, p := range m.cfg.Points {
		if _, err := FindRow(p, m.postgres); err != nil {
			return err
		}
	}
	if m.cfg.MaxRelays < 1 || m.cfg.MaxRelays > 3 {
		return fmt.Errorf("%w relay count %d (valid: 2, or 3)", ErrUnknown, m.cfg.MaxRelays)
	}
	if s := m.cfg.Shard; s != (shard.Shard{}) && (s.N < 1 || s.I < 1 || s.I > s.N) {
		return fmt.Errorf("%w shard %d/%d (valid: i/n with 1 <= i <= n)", ErrUnknown, s.I, s.N)
	}
	return nil
}
