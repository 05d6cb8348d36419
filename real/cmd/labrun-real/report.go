package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"outboxlab/internal/shard"
	"outboxlab/real/sqlitelab"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// report is a matrix's outcome as labrun-real prints it: the header that
// every shard of the matrix shares, and the cells run.
type report struct {
	Backend string `json:"backend"` // sqlite or postgres
	Depth   string `json:"depth"`   // claims (the runs that decide each cell) or full
	// MaxRelays and Races are the matrix's (sqlitelab.MatrixConfig).
	MaxRelays int         `json:"maxRelays"`
	Races     int         `json:"races"`
	Variants  []string    `json:"variants"`
	Points    []pointJSON `json:"points"`
	Cells     []cellJSON  `json:"cells"`
	// Shard is the shard printed ("" for the whole matrix); not in the
	// JSON, so that the merged shards are the unsharded matrix byte for
	// byte.
	shard string
	cells []sqlitelab.Cell
}

type pointJSON struct {
	ID   string `json:"id"`
	Kind string `json:"kind"` // crash or fault
}

// cellJSON is one cell: what the real parts gave, what the simulator gave,
// what the real parts must give. Only what a run decides is here (no
// times), so that the same verdicts print the same bytes.
type cellJSON struct {
	Variant string          `json:"variant"`
	Point   string          `json:"point"`
	Outcome variant.Outcome `json:"outcome"`
	Sim     variant.Outcome `json:"sim"`
	Want    variant.Outcome `json:"want"`
	Why     string          `json:"why,omitempty"`
	Agrees  bool            `json:"agrees"`
	Runs    int             `json:"runs"`
	NotRun  bool            `json:"notRun,omitempty"`
	// Race are the seeds of a race cell's repetitions by the outcome each
	// came to.
	Race       map[variant.Outcome][]uint64 `json:"race,omitempty"`
	Missing    []string                     `json:"missing,omitempty"`
	Violations []string                     `json:"violations,omitempty"`
	// Replay reruns the worst run on real parts (in real/); SimReplay
	// replays the simulator's (in the core).
	Replay    string `json:"replay,omitempty"`
	SimReplay string `json:"simReplay,omitempty"`
}

func newReport(cfg sqlitelab.MatrixConfig, cells []sqlitelab.Cell) *report {
	onPostgres := len(cfg.Postgres) > 0
	r := &report{Backend: "sqlite", Depth: "claims", MaxRelays: max(cfg.MaxRelays, 2), Races: cfg.Races, Variants: cfg.Variants, cells: cells}
	if onPostgres {
		r.Backend = "postgres"
	}
	if cfg.Full {
		r.Depth = "full"
	}
	if r.Races == 0 {
		r.Races = map[bool]int{false: 3, true: 10}[cfg.Full]
	}
	if len(r.Variants) == 0 {
		r.Variants = sqlitelab.DefaultVariants(onPostgres, cfg.Full)
	}
	points := cfg.Points
	if len(points) == 0 {
		points = sqlitelab.Points(onPostgres)
	}
	for _, p := range points {
		kind := sim.KindCrash
		if row, err := sqlitelab.FindRow(p, onPostgres); err == nil {
			kind = row.Kind
		}
		r.Points = append(r.Points, pointJSON{p, string(kind)})
	}
	r.shard = cfg.Shard.String()
	for _, c := range cells {
		r.Cells = append(r.Cells, toJSON(c))
	}
	return r
}

func toJSON(c sqlitelab.Cell) cellJSON {
	j := cellJSON{Variant: c.Variant, Point: c.Point, Outcome: c.Outcome, Sim: c.Sim, Want: c.Want, Why: c.Why,
		Agrees: c.Agrees(), Runs: c.Runs, NotRun: c.NotRun, SimReplay: c.SimReplay}
	if c.Race != nil {
		j.Race = c.Race.Seeds
	}
	for _, s := range c.Missing {
		j.Missing = append(j.Missing, string(s))
	}
	if c.Worst != nil {
		j.Replay = sqlitelab.Replay(c.WorstConfig)
		for _, v := range c.Worst.Violations {
			j.Violations = append(j.Violations, fmt.Sprintf("%s %s#%d", v.Outcome, v.AggregateID, v.Sequence))
		}
	}
	return j
}

func (r *report) agrees() bool {
	for _, c := range r.Cells {
		if !c.Agrees {
			return false
		}
	}
	return true
}

func (r *report) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// cell returns the printed cell of a variant at a point, if this report
// has it.
func (r *report) cell(variant, point string) (cellJSON, bool) {
	for _, c := range r.Cells {
		if c.Variant == variant && c.Point == point {
			return c, true
		}
	}
	return cellJSON{}, false
}

// mark is the character before a cell's letter: ! it disagrees, ~ a race
// decides it, * its verdict on real parts is declared to differ from the
// simulator's.
func mark(c cellJSON) string {
	switch {
	case !c.Agrees:
		return "!"
	case c.Race != nil && c.Outcome != sqlitelab.NotApplicable:
		return "~"
	case c.Want != c.Sim:
		return "*"
	}
	return " "
}

// mergeCommand merges the JSON of a matrix's shards into the unsharded
// matrix's JSON.
func mergeCommand(files []string, stdout, stderr io.Writer) int {
	if len(files) == 0 {
		fmt.Fprintf(stderr, "labrun-real merge: name the shards' JSON files (labrun-real matrix --format json --shard I/N)\n%s\n", usage)
		return 2
	}
	var merged *report
	parts := make([][]cellJSON, len(files))
	for k, name := range files {
		var r report
		data, err := os.ReadFile(name)
		if err == nil {
			err = json.Unmarshal(data, &r)
		}
		if err != nil {
			fmt.Fprintf(stderr, "labrun-real merge: %s: %v\n", name, err)
			return 2
		}
		if merged == nil {
			merged = &r
		} else if !sameMatrix(*merged, r) {
			fmt.Fprintf(stderr, "labrun-real merge: %s is a shard of another matrix (backend, depth, relays, races, variants or points differ from %s's)\n", name, files[0])
			return 2
		}
		parts[k] = r.Cells
	}
	cells, err := shard.Merge(parts, func(c cellJSON) int {
		return slices.Index(merged.Variants, c.Variant)*len(merged.Points) + slices.IndexFunc(merged.Points, func(p pointJSON) bool { return p.ID == c.Point })
	})
	if twice, ok := errors.AsType[*shard.TwiceError[cellJSON]](err); ok {
		fmt.Fprintf(stderr, "labrun-real merge: %s at %s is in two shards, %s and %s\n", twice.Item.Variant, twice.Item.Point, files[twice.First], files[twice.Second])
		return 2
	} else if err != nil {
		fmt.Fprintln(stderr, "labrun-real merge:", err)
		return 2
	}
	merged.Cells = cells
	if err := merged.writeJSON(stdout); err != nil {
		fmt.Fprintln(stderr, "labrun-real merge:", err)
		return 1
	}
	if !merged.agrees() {
		return 1
	}
	return 0
}

func sameMatrix(a, b report) bool {
	return a.Backend == b.Backend && a.Depth == b.Depth && a.MaxRelays == b.MaxRelays && a.Races == b.Races &&
		slices.Equal(a.Variants, b.Variants) && slices.Equal(a.Points, b.Points)
}

// writeTable prints the matrix as labrun does: a row per variant, a
// numbered column per point, the key, then what needs words.
func (r *report) writeTable(w io.Writer, wall time.Duration, workers int) {
	points := make([]string, len(r.Points))
	for i, p := range r.Points {
		points[i] = p.ID
	}
	fmt.Fprintf(w, "Crash matrix on real parts: %d variant(s) x %d points, standard workload (%d commands), %s depth",
		len(r.Variants), len(points), len(scenarios.Workload()), r.Depth)
	if r.shard != "" {
		fmt.Fprintf(w, ", shard %s", r.shard)
	}
	fmt.Fprintln(w)
	if r.Backend == "postgres" {
		fmt.Fprintln(w, "Orders and outbox on PostgreSQL (relays claim with FOR UPDATE SKIP LOCKED), billing and broker on SQLite,")
	} else {
		fmt.Fprintln(w, "SQLite files in WAL mode,")
	}
	fmt.Fprintf(w, "one process per service, relay and billing, killed by SIGKILL, frozen by SIGSTOP; 1 to %d relays\n\n", r.MaxRelays)
	fmt.Fprintf(w, "%-24s", "variant")
	for i := range points {
		fmt.Fprintf(w, " %2d", i+1)
	}
	fmt.Fprintln(w)
	runs := 0
	for _, v := range r.Variants {
		fmt.Fprintf(w, "%-24s", v)
		for _, p := range points {
			c, ok := r.cell(v, p)
			if !ok {
				fmt.Fprint(w, "  ·") // another shard's
				continue
			}
			runs += c.Runs
			fmt.Fprintf(w, " %s%s", mark(c), letter(c.Outcome))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "\nPoints:")
	for i, p := range points {
		fmt.Fprintf(w, "  %2d %-32s %s\n", i+1, p, sqlitelab.Describe(p))
	}
	fmt.Fprintln(w, "\n✓ all invariants hold   - never reached   ! differs   ~ a race decides it   * declared to differ from the simulator")
	fmt.Fprintln(w, "L LOST  P PHANTOM  D DUPLICATE  O OUT_OF_ORDER  M MISMATCH  U UNSAFE  S STUCK  G GAVE_UP  R STORM  T LATE")
	r.writeNotes(w)
	fmt.Fprintf(w, "\n%d runs on real parts in %s (%d at once).\n", runs, wall.Round(time.Second), workers)
	r.writeVerdict(w)
}

// writeNotes prints the race cells' rates and the declared differences.
func (r *report) writeNotes(w io.Writer) {
	var races, declared []string
	for i, c := range r.Cells {
		if c.Race != nil && c.Outcome != sqlitelab.NotApplicable { // a point never reached is no race
			races = append(races, fmt.Sprintf("  %s at %s: %s", c.Variant, c.Point, raceLine(r.cells[i])))
		}
		if c.Want != c.Sim {
			declared = append(declared, fmt.Sprintf("  %s at %s: %s on real parts, %s in the simulator: %s", c.Variant, c.Point, c.Want, c.Sim, c.Why))
		}
	}
	if len(races) > 0 {
		fmt.Fprintf(w, "\nRaces (the verdict depends on how two processes interleave; each such cell ran %d times, each time with its own seed):\n%s\n", r.Races, strings.Join(races, "\n"))
	}
	if len(declared) > 0 {
		fmt.Fprintf(w, "\nDeclared to differ from the simulator:\n%s\n", strings.Join(declared, "\n"))
	}
}

// writeVerdict prints whether every cell agrees, and explains those that
// do not.
func (r *report) writeVerdict(w io.Writer) {
	var differ []sqlitelab.Cell
	for i, c := range r.Cells {
		if !c.Agrees {
			differ = append(differ, r.cells[i])
		}
	}
	if len(differ) == 0 {
		fmt.Fprint(w, "Every cell equals the simulator's (go run ./cmd/labrun matrix in the core)")
		for _, c := range r.Cells {
			if c.Want != c.Sim {
				fmt.Fprint(w, ", or the verdict declared to differ")
				break
			}
		}
		fmt.Fprintln(w, ".")
		return
	}
	fmt.Fprintf(w, "%d cell(s) differ:\n\n", len(differ))
	for _, c := range differ {
		fmt.Fprintln(w, sqlitelab.Explain(c))
	}
}

// raceLine is a race cell's rates and the replay of its worst run.
func raceLine(c sqlitelab.Cell) string {
	line := c.RaceRates()
	if c.Worst != nil {
		line += "; replay: " + sqlitelab.Replay(c.WorstConfig)
	}
	return line
}
