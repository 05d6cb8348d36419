package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"outboxlab/internal/report"
	"outboxlab/lab/check"
	"outboxlab/lab/lang"
	"outboxlab/lab/variant"
	"outboxlab/scenarios"
	"outboxlab/sim"
)

// runSummary is labrun without a command: the matrix and the sweeps, told
// in one line per variant.
func runSummary(args []string, stdout io.Writer) error {
	fs := newFlags("summary", "", lang.Text{
		EN: "One line per variant: ✓ where every invariant holds at every point (and in its sweep), else each outcome with the first point that showed it. What labrun does without a command.",
		DE: "Eine Zeile je Variante: ✓, wo an jedem Punkt (und in ihrem Sweep) jede Invariante gilt, sonst jedes Ergebnis mit dem ersten Punkt, der es zeigte. Was labrun ohne Befehl tut.",
	}, stdout)
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	return matrixCommand(stdout, scenarios.Variants(), "summary", false)
}

func runMatrix(args []string, stdout io.Writer) error {
	fs := newFlags("matrix", "", lang.Text{
		EN: "The whole crash matrix: a row per variant and a numbered column per point, the key below, then every violation with the command that replays it, and the correct variants' sweeps.",
		DE: "Die ganze Crash-Matrix: eine Zeile je Variante und eine nummerierte Spalte je Punkt, der Schlüssel darunter, dann jede Verletzung mit dem Befehl, der sie wiederholt, und die Sweeps der korrekten Varianten.",
	}, stdout)
	variants := fs.repeated("variant", "V", lang.Textf(lang.Text{
		EN: "a variant to include (default: all): %s",
		DE: "eine Variante, die dazugehört (Standard: alle): %s",
	}, strings.Join(scenarios.VariantNames(), ", ")))
	format := fs.formatFlag("table", "markdown", "json", "html")
	wide := fs.boolean("wide", lang.Text{
		EN: "the table with one column per variant and one row per point, and the outcome words (wider than 100 columns)",
		DE: "die Tabelle mit einer Spalte je Variante, einer Zeile je Punkt und den Ergebniswörtern (breiter als 100 Spalten)",
	})
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	selected, err := selectVariants(*variants)
	if err != nil {
		return err
	}
	return matrixCommand(stdout, selected, format.value, *wide)
}

// matrixCommand runs the matrix and the sweeps for the selected variants
// and writes them in the format asked for.
func matrixCommand(stdout io.Writer, selected []variant.Variant, format string, wide bool) error {
	m := scenarios.Matrix()
	cells, sweeps, err := runCells(m, selected)
	if err != nil {
		return err
	}
	switch format {
	case "json":
		err = writeMatrixJSON(stdout, m, selected, cells, sweeps)
	case "markdown":
		writeMatrixMarkdown(stdout, m, selected, cells)
		if len(sweeps) > 0 {
			fmt.Fprint(stdout, tr(stdout, "\n### Sweeps\n\n"))
			for _, sw := range sweeps {
				fmt.Fprint(stdout, trf(stdout, "- **%s**: %d points, %d runs, %d failed\n", sw.Variant, sw.Points, sw.Runs, len(sw.Failures)))
			}
		}
	case "summary":
		writeSummary(stdout, m, selected, cells, sweeps)
	case "html":
		err = writeMatrixHTML(stdout, m, selected, cells)
	default:
		table := bufferFor(stdout)
		if wide {
			writeMatrixTable(table, m, selected, cells)
		} else {
			writeCompactTable(table, m, selected, cells)
		}
		writeSweeps(table, sweeps)
		text := table.String()
		if useColour(stdout) {
			text = colourize(text)
		}
		_, err = io.WriteString(stdout, text)
	}
	if err != nil {
		return err
	}
	for _, c := range cells {
		if !c.Matches() {
			return errMismatch
		}
	}
	for _, sw := range sweeps {
		if len(sw.Failures) > 0 {
			return errMismatch
		}
	}
	return nil
}

// runCells runs m for the selected variants, and the sweep for each that
// claims to be correct. (A variable: the package's tests share one run
// between the outputs of the same variants.)
var runCells = func(m sim.Matrix, selected []variant.Variant) ([]sim.Cell, []sim.Sweep, error) {
	cells, err := m.Run(selected)
	if err != nil {
		return nil, nil, err
	}
	var sweeps []sim.Sweep
	for _, v := range selected {
		if v.Correct() {
			sw, err := m.Sweep(v)
			if err != nil {
				return nil, nil, err
			}
			sweeps = append(sweeps, sw)
		}
	}
	return cells, sweeps, nil
}

const sweepIntro = `
Beyond the rows, the correct variants are crashed at every point they reach, at every
occurrence, and again at every point reached after that (double crashes, recovery included),
with one relay and again with two where the variant supports two:
`

// writeSweeps reports the sweeps of the correct variants beyond the rows.
func writeSweeps(w io.Writer, sweeps []sim.Sweep) {
	if len(sweeps) == 0 {
		return
	}
	fmt.Fprint(w, tr(w, sweepIntro))
	for _, sw := range sweeps {
		verdict := tr(w, "all OK")
		if n := len(sw.Failures); n > 0 {
			verdict = trf(w, "%d FAILED", n)
		}
		fmt.Fprint(w, trf(w, "  %-20s %3d points, %4d runs, %s\n", sw.Variant, sw.Points, sw.Runs, verdict))
		writeSweepFailures(w, sw)
	}
}

func selectVariants(names []string) ([]variant.Variant, error) {
	if len(names) == 0 {
		return scenarios.Variants(), nil
	}
	var out []variant.Variant
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue // one column per variant, however often it is named
		}
		seen[n] = true
		v, err := scenarios.FindMatrixVariant(n)
		if err != nil {
			return nil, usageError{msg: err.Error()}
		}
		out = append(out, v)
	}
	return out, nil
}

// cellAt returns the cell of variant v at point p.
func cellAt(cells []sim.Cell, v, p string) sim.Cell {
	for _, c := range cells {
		if c.Variant == v && c.Point.ID == p {
			return c
		}
	}
	return sim.Cell{}
}

// mark renders a cell: ✓ for OK, the outcome word otherwise, and a trailing
// "!" where the cell disagrees with the variant's declaration.
func mark(c sim.Cell) string {
	s := c.Outcome
	if s == "OK" {
		s = "✓"
	}
	if !c.Matches() {
		s += "!"
	}
	return s
}

// useColour reports whether w is a terminal and NO_COLOR is not set.
func useColour(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// colourize paints the outcome words of a rendered table: ✓ green, a
// violation red, n/a dim. Widths do not change, so the columns stay aligned.
func colourize(text string) string {
	const reset = "\x1b[0m"
	paint := map[string]string{"✓": "\x1b[32m", "n/a": "\x1b[2m", "-": "\x1b[2m"}
	for _, o := range outcomeLetters {
		paint[o.word], paint[o.letter] = "\x1b[31m", "\x1b[31m"
	}
	variants := map[string]bool{}
	for _, n := range scenarios.VariantNames() {
		variants[n] = true
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		wideRow := strings.Contains(line, "  crash  ") || strings.Contains(line, "  fault  ")
		compactRow := variants[strings.SplitN(line, " ", 2)[0]] && strings.Contains(line, "  ")
		if !wideRow && !compactRow {
			continue // only the rows of the tables
		}
		fields := strings.Split(line, " ")
		for j, f := range fields {
			word := strings.TrimSuffix(f, "!")
			if code, ok := paint[word]; ok && j > 0 {
				fields[j] = code + f + reset
			}
		}
		lines[i] = strings.Join(fields, " ")
	}
	return strings.Join(lines, "\n")
}

func writeMatrixTable(w io.Writer, m sim.Matrix, variants []variant.Variant, cells []sim.Cell) {
	fmt.Fprintf(w, "Crash matrix: %d variant(s) x %d points, standard workload (%d commands), seed %d\n\n",
		len(variants), len(m.Points), len(m.Workload), m.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "point\tkind")
	for _, v := range variants {
		fmt.Fprintf(tw, "\t%s", v.Name)
	}
	fmt.Fprintln(tw)
	for _, p := range m.Points {
		fmt.Fprintf(tw, "%s\t%s", p.ID, p.Kind)
		for _, v := range variants {
			fmt.Fprintf(tw, "\t%s", mark(cellAt(cells, v.Name, p.ID)))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	writeLegend(w)
	writeFindings(w, cells)
}

func writeMatrixMarkdown(w io.Writer, m sim.Matrix, variants []variant.Variant, cells []sim.Cell) {
	fmt.Fprint(w, trf(w, "## Crash matrix\n\n%d variant(s) at %d points, standard workload (%d commands), seed %d.\n\n",
		len(variants), len(m.Points), len(m.Workload), m.Seed))
	fmt.Fprint(w, tr(w, "| point | kind |"))
	for _, v := range variants {
		fmt.Fprintf(w, " %s |", v.Name)
	}
	fmt.Fprint(w, "\n|---|---|")
	for range variants {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, p := range m.Points {
		fmt.Fprintf(w, "| `%s` | %s |", p.ID, tr(w, string(p.Kind)))
		for _, v := range variants {
			fmt.Fprintf(w, " %s |", mark(cellAt(cells, v.Name, p.ID)))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, tr(w, "\n### Legend\n\n"))
	for _, l := range legend {
		fmt.Fprintf(w, "- `%s` %s\n", l.word, tr(w, l.meaning))
	}
	fmt.Fprint(w, tr(w, "\n### Findings\n\n"))
	for _, c := range cells {
		if c.Counterexample == nil && c.Matches() {
			continue
		}
		fmt.Fprint(w, trf(w, "- **%s** at `%s`: %s (%s)\n", c.Variant, c.Point.ID, c.Outcome, declared(w, c)))
		for _, v := range c.Violations {
			fmt.Fprintf(w, "  - %s\n", v)
		}
		if c.Counterexample != nil {
			fmt.Fprint(w, trf(w, "  - replay: `%s`\n", c.Counterexample.Replay(programName(), c.Variant)))
		}
		for _, u := range c.Unhandled {
			fmt.Fprint(w, trf(w, "  - %s: an error the process should have handled itself (Relay.Run stops at it)\n", u))
		}
		if c.UnhandledRun != nil {
			fmt.Fprint(w, trf(w, "  - replay: `%s`\n", c.UnhandledRun.Replay(programName(), c.Variant)))
		}
	}
}

// declared says how a cell stands to its variant's declaration.
func declared(w io.Writer, c sim.Cell) string {
	switch {
	case c.Matches():
		return tr(w, "as declared")
	case c.OutcomeMatches():
		return tr(w, "as declared, but with an error the process should have handled itself")
	}
	return trf(w, "but the variant declares %s", c.Expected)
}

// writeUnhandled lists a cell's unhandled errors with the command that
// replays the run that returned them.
func writeUnhandled(w io.Writer, c sim.Cell) {
	for _, u := range c.Unhandled {
		fmt.Fprintln(w, hanging("  ", "    ", trf(w, "%s: an error the process should have handled itself (Relay.Run stops at it)", u)))
	}
	if c.UnhandledRun != nil {
		fmt.Fprintln(w, command(tr(w, "  replay: "), c.UnhandledRun.Replay(programName(), c.Variant)))
	}
}

// nextSteps are the commands the summary suggests, with what each shows.
var nextSteps = [][2]string{
	{"matrix", "every cell, every violation, its replay"},
	{"scenario mistake/dual-write", "one mistake's story as a timeline"},
	{"list", "the variants, points and stories"},
	{"explore --variant outbox", "random schedules against the reference"},
}

// legend is what the words and marks of a matrix mean.
var legend = []struct{ word, meaning string }{
	{"✓", "all invariants hold"},
	{"n/a", "the variant never reaches this point"},
	{"LOST", "a committed (or acknowledged) change has no effect downstream"},
	{"PHANTOM", "a downstream effect for a change never committed"},
	{"DUPLICATE", "a business effect applied more than once"},
	{"OUT_OF_ORDER", "an older event applied after a newer one of the same order"},
	{"STUCK", "a message neither SENT nor DEAD_LETTER after quiesce"},
	{"MISMATCH", "an effect that differs from the committed change (amount, kind)"},
	{"UNSAFE", "a safety breach during the run (two live owners, a write after SENT)"},
	{"GAVE_UP", "a dead letter although every fault was transient"},
	{"STORM", "more publishes than the retry policy allows"},
	{"LATE", "a message waited although a relay could have sent it"},
	{"!", "the cell disagrees with what the variant declares"},
}

// writeMatrixHTML writes the matrix as a page whose cells link to their
// counterexamples, each run again with its trace.
func writeMatrixHTML(w io.Writer, m sim.Matrix, variants []variant.Variant, cells []sim.Cell) error {
	page := report.Matrix{
		Title:  strings.TrimSpace(trf(w, "Crash matrix: %d variant(s) x %d points, standard workload (%d commands), seed %d\n\n", len(variants), len(m.Points), len(m.Workload), m.Seed)),
		Points: m.Points,
		Cells:  cells,
		Runs:   map[string]report.Run{},
		Mark:   letter,
	}
	for _, l := range legend {
		word := l.word
		for _, o := range outcomeLetters {
			if o.word == l.word {
				word = o.letter + " " + l.word
			}
		}
		page.Legend = append(page.Legend, [2]string{word, tr(w, l.meaning)})
	}
	for _, v := range variants {
		page.Variants = append(page.Variants, v.Name)
		for _, c := range cells {
			run := c.Counterexample
			if run == nil {
				run = c.UnhandledRun
			}
			if c.Variant != v.Name || run == nil {
				continue
			}
			ce := *run
			sc, err := scenarios.FindScenario(ce.Scenario)
			if err != nil {
				return err
			}
			summary, _ := scenarioText(w, sc)
			cfg := sc.Configure(v, ce.Seed)
			if ce.Relays > 0 {
				cfg.Relays = ce.Relays
			}
			cfg.Trace = true
			res, err := sim.Run(cfg)
			if err != nil {
				return err
			}
			expected, _ := check.ParseOutcome(c.Expected)
			page.Runs[report.Key(v.Name, c.Point.ID)] = report.Run{
				Title:   strings.TrimSpace(trf(w, "%s at %s: %s (%s)\n", v.Name, c.Point.ID, res.Outcome, trf(w, "expected %s", c.Expected))),
				Summary: summary, Outcome: res.Outcome, Expected: expected, Violations: res.Violations,
				Replay: ce.Replay(programName(), v.Name), Trace: res.Trace,
			}
		}
	}
	return report.WriteMatrix(w, page, reportOptions(w))
}

// reportOptions are the HTML report's language and outcome meanings for w.
func reportOptions(w io.Writer) report.Options {
	opts := report.Options{German: german(w), Meanings: map[string]string{}}
	for _, l := range legend {
		opts.Meanings[l.word] = tr(w, l.meaning)
	}
	return opts
}

// sweepMeaning explains the sweep where the summary first names it.
var sweepMeaning = lang.Text{
	EN: "beyond the points: a correct variant crashed at every point it reaches, then again after it, and every commit failed once (labrun help)",
	DE: "über die Punkte hinaus: eine korrekte Variante an jedem Punkt abgestürzt, den sie erreicht, dann noch einmal danach, und jeder Commit einmal gescheitert (labrun help)",
}

func writeLegend(w io.Writer) {
	fmt.Fprintf(w, "\n%s %s %s   %s %s\n", tr(w, "Legend:"), legend[0].word, tr(w, legend[0].meaning), legend[1].word, tr(w, legend[1].meaning))
	for _, l := range legend[2:] {
		fmt.Fprintf(w, "  %-13s %s\n", l.word, tr(w, l.meaning))
	}
}

// writeFindings lists every violation with the command that replays it,
// and every disagreement with a declaration.
func writeFindings(w io.Writer, cells []sim.Cell) {
	mismatches := 0
	for _, c := range cells {
		if !c.Matches() {
			mismatches++
		}
	}
	fmt.Fprintln(w)
	for _, c := range cells {
		if c.Counterexample == nil && len(c.Unhandled) == 0 {
			if !c.Matches() {
				fmt.Fprint(w, trf(w, "%s at %s: %s, but the variant declares %s\n", c.Variant, c.Point.ID, c.Outcome, c.Expected))
			}
			continue
		}
		fmt.Fprint(w, trf(w, "%s at %s: %s (%s)\n", c.Variant, c.Point.ID, c.Outcome, declared(w, c)))
		for _, v := range c.Violations {
			fmt.Fprintln(w, hanging("  ", "    ", v.String()))
		}
		if c.Counterexample != nil {
			fmt.Fprintln(w, command(tr(w, "  replay: "), c.Counterexample.Replay(programName(), c.Variant)))
		}
		writeUnhandled(w, c)
	}
	if mismatches == 0 {
		fmt.Fprintln(w, tr(w, "Every cell matches its variant's declaration."))
	} else {
		fmt.Fprint(w, trf(w, "%d cell(s) disagree with their variant's declaration.\n", mismatches))
	}
}

type jsonMatrix struct {
	Variants []string    `json:"variants"`
	Points   []jsonPoint `json:"points"`
	Cells    []jsonCell  `json:"cells"`
	Sweeps   []jsonSweep `json:"sweeps"`
}

type jsonSweep struct {
	Variant  string   `json:"variant"`
	Points   int      `json:"points"`
	Runs     int      `json:"runs"`
	Failures []string `json:"failures"`
}

type jsonPoint struct {
	ID          string `json:"id"`
	Kind        string `json:"kind"`
	Description string `json:"description,omitempty"`
}

type jsonCell struct {
	Variant        string         `json:"variant"`
	Point          string         `json:"point"`
	Outcome        string         `json:"outcome"`
	Expected       string         `json:"expected"`
	Runs           int            `json:"runs"`
	Violations     []string       `json:"violations"`
	Counterexample *jsonCounterex `json:"counterexample"`
	// Unhandled are the errors of UnhandledRun the process should have
	// handled itself (sim.Cell.Unhandled).
	Unhandled    []string       `json:"unhandled,omitempty"`
	UnhandledRun *jsonCounterex `json:"unhandledRun,omitempty"`
}

type jsonCounterex struct {
	Seed     uint64   `json:"seed"`
	Schedule []string `json:"schedule"`
	Replay   string   `json:"replay"`
}

func writeMatrixJSON(w io.Writer, m sim.Matrix, variants []variant.Variant, cells []sim.Cell, sweeps []sim.Sweep) error {
	out := jsonMatrix{Variants: []string{}, Points: []jsonPoint{}, Cells: []jsonCell{}, Sweeps: []jsonSweep{}}
	for _, sw := range sweeps {
		js := jsonSweep{Variant: sw.Variant, Points: sw.Points, Runs: sw.Runs, Failures: []string{}}
		for _, f := range sw.Failures {
			js.Failures = append(js.Failures, fmt.Sprintf("%d relay(s), crashes %v: %s %v %v", f.Relays, f.Crashes, f.Outcome, f.Violations, f.Unsafe))
		}
		out.Sweeps = append(out.Sweeps, js)
	}
	for _, v := range variants {
		out.Variants = append(out.Variants, v.Name)
	}
	for _, p := range m.Points {
		out.Points = append(out.Points, jsonPoint{ID: p.ID, Kind: string(p.Kind)})
	}
	for _, c := range cells {
		jc := jsonCell{Variant: c.Variant, Point: c.Point.ID, Outcome: c.Outcome, Expected: c.Expected, Runs: c.Runs, Violations: []string{}}
		for _, v := range c.Violations {
			jc.Violations = append(jc.Violations, v.String())
		}
		if ce := c.Counterexample; ce != nil {
			jc.Counterexample = &jsonCounterex{Seed: ce.Seed, Schedule: ce.Schedule, Replay: ce.Replay(programName(), c.Variant)}
		}
		if ce := c.UnhandledRun; ce != nil {
			jc.Unhandled = c.Unhandled
			jc.UnhandledRun = &jsonCounterex{Seed: ce.Seed, Schedule: ce.Schedule, Replay: ce.Replay(programName(), c.Variant)}
		}
		out.Cells = append(out.Cells, jc)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// width is what labrun's default outputs fit in.
const width = 100

// outcomeLetters abbreviate the outcome words in the compact table.
var outcomeLetters = []struct{ word, letter string }{
	{"LOST", "L"}, {"PHANTOM", "P"}, {"DUPLICATE", "D"}, {"OUT_OF_ORDER", "O"}, {"MISMATCH", "M"},
	{"UNSAFE", "U"}, {"STUCK", "S"}, {"GAVE_UP", "G"}, {"STORM", "R"}, {"LATE", "T"},
}

// letter renders a cell in one or two characters: ✓, -, an outcome's
// letter, and "!" where the cell disagrees with the declaration.
func letter(c sim.Cell) string {
	s := "?"
	switch c.Outcome {
	case "OK":
		s = "✓"
	case sim.NotApplicable:
		s = "-"
	default:
		for _, o := range outcomeLetters {
			if o.word == c.Outcome {
				s = o.letter
			}
		}
	}
	if !c.Matches() {
		s += "!"
	}
	return s
}

// compactWidth is how many columns the compact table may take.
const compactWidth = 100

// writeCompactTable is the matrix in 100 columns: a row per variant, a
// numbered column per point, the points' key below. When the points do not
// fit side by side, the crash points and the faults are two tables, one
// below the other.
func writeCompactTable(w io.Writer, m sim.Matrix, variants []variant.Variant, cells []sim.Cell) {
	fmt.Fprint(w, trf(w, "Crash matrix: %d variant(s) x %d points, standard workload (%d commands), seed %d\n\n",
		len(variants), len(m.Points), len(m.Workload), m.Seed))
	name := len("variant")
	for _, v := range variants {
		name = max(name, len(v.Name))
	}
	blocks := [][]int{nil}
	for i, p := range m.Points {
		if name+3*len(m.Points) > compactWidth && i > 0 && p.Kind != m.Points[i-1].Kind {
			blocks = append(blocks, nil)
		}
		blocks[len(blocks)-1] = append(blocks[len(blocks)-1], i)
	}
	for b, block := range blocks {
		if b > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%-*s", name, tr(w, "variant"))
		for _, i := range block {
			fmt.Fprintf(w, " %2d", i+1)
		}
		fmt.Fprintln(w)
		for _, v := range variants {
			fmt.Fprintf(w, "%-*s", name, v.Name)
			for _, i := range block {
				fmt.Fprintf(w, " %2s", letter(cellAt(cells, v.Name, m.Points[i].ID)))
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w, tr(w, "\nPoints:"))
	var key []string
	for i, p := range m.Points {
		key = append(key, fmt.Sprintf("%2d %s (%s)", i+1, p.ID, tr(w, string(p.Kind))))
	}
	writeColumns(w, key, 2)
	fmt.Fprintln(w, tr(w, "\n✓ all invariants hold   - never reached   ! disagrees with what the variant declares"))
	line := ""
	for _, o := range outcomeLetters {
		item := o.letter + " " + o.word
		if line != "" && len(line)+2+len(item) > width {
			fmt.Fprintln(w, line)
			line = ""
		}
		if line != "" {
			line += "  "
		}
		line += item
	}
	fmt.Fprintln(w, line)
	writeLegend(w)
	writeFindings(w, cells)
}

// writeColumns writes items in n columns of equal width.
func writeColumns(w io.Writer, items []string, n int) {
	col := 0
	for _, it := range items {
		col = max(col, len(it)+3)
	}
	for i, it := range items {
		if i%n == n-1 || i == len(items)-1 {
			fmt.Fprintln(w, "  "+it)
		} else {
			fmt.Fprintf(w, "  %-*s", col-2, it)
		}
	}
}

// writeSummary is what labrun prints without a command: every variant on
// one line, where it breaks and how, and what to run next. It fits 100
// columns and one screen.
func writeSummary(w io.Writer, m sim.Matrix, variants []variant.Variant, cells []sim.Cell, sweeps []sim.Sweep) {
	runs := 0
	for _, c := range cells {
		runs += c.Runs
	}
	fmt.Fprint(w, trf(w, "outboxlab: %d variants at %d crash points and faults (%d runs, seed %d)\n\n", len(variants), len(m.Points), runs, m.Seed))
	mismatches := 0
	for _, v := range variants {
		verdict := summaryVerdict(w, v, m, cells, sweeps)
		for _, p := range m.Points {
			if !cellAt(cells, v.Name, p.ID).Matches() {
				mismatches++
			}
		}
		line := fmt.Sprintf("%-24s %s", v.Name, verdict)
		if len([]rune(line)) > width {
			line = string([]rune(line)[:width-1]) + "…"
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
	if mismatches == 0 {
		fmt.Fprintln(w, tr(w, "Every cell matches its variant's declaration: the mistakes fail where the chapters say."))
	} else {
		fmt.Fprint(w, trf(w, "%d cell(s) disagree with their variant's declaration (marked !): see `%s matrix`.\n", mismatches, programName()))
	}
	writeLegend(w)
	if len(sweeps) > 0 {
		fmt.Fprintln(w, hanging(fmt.Sprintf("  %-13s", "sweep"), strings.Repeat(" ", 16), sweepMeaning.In(langOf(w))))
	}
	fmt.Fprintln(w, tr(w, "\nNext:"))
	for _, next := range nextSteps {
		fmt.Fprintf(w, "  %-49s %s\n", programName()+" "+next[0], tr(w, next[1]))
	}
}

// summaryVerdict says in a few words how v fared: ✓ everywhere (with its
// sweep), or each outcome with the first point that showed it.
func summaryVerdict(w io.Writer, v variant.Variant, m sim.Matrix, cells []sim.Cell, sweeps []sim.Sweep) string {
	type seen struct {
		first string
		n     int
	}
	byOutcome := map[string]*seen{}
	var order []string
	bad := ""
	for _, p := range m.Points {
		c := cellAt(cells, v.Name, p.ID)
		if !c.Matches() {
			bad = "! "
		}
		if c.Outcome == "OK" || c.Outcome == sim.NotApplicable {
			continue
		}
		if s, ok := byOutcome[c.Outcome]; ok {
			s.n++
			continue
		}
		byOutcome[c.Outcome] = &seen{first: p.ID, n: 1}
		order = append(order, c.Outcome)
	}
	sweep := ""
	for _, sw := range sweeps {
		if sw.Variant == v.Name {
			sweep = trf(w, "; sweep: %d runs, all OK", sw.Runs)
			if len(sw.Failures) > 0 {
				sweep = trf(w, "; sweep: %d of %d runs FAILED", len(sw.Failures), sw.Runs)
			}
		}
	}
	if len(order) == 0 {
		return bad + tr(w, "✓ at every point") + sweep
	}
	var parts []string
	for _, o := range order {
		s := byOutcome[o]
		part := trf(w, "%s at %s", o, s.first)
		if s.n > 1 {
			part += trf(w, " (+%d more)", s.n-1)
		}
		parts = append(parts, part)
	}
	return bad + strings.Join(parts, "; ") + sweep
}

// hanging wraps text at width: the first line after first, the others
// after rest.
func hanging(first, rest, text string) string {
	var b strings.Builder
	line := first
	for _, word := range strings.Fields(text) {
		if len([]rune(line))+1+len([]rune(word)) > width && strings.TrimSpace(line) != "" {
			b.WriteString(line + "\n")
			line = rest
		}
		if strings.TrimSpace(line) != "" {
			line += " "
		}
		line += word
	}
	return b.String() + line
}

// command prints a shell command after prefix, continued with a backslash
// where it would pass width, so that it still pastes as one command.
func command(prefix, cmd string) string {
	var b strings.Builder
	line := prefix
	var words []string // a flag and its value stay together
	for _, f := range strings.Fields(cmd) {
		if n := len(words); n > 0 && strings.HasPrefix(words[n-1], "--") && !strings.Contains(words[n-1], " ") && !strings.HasPrefix(f, "--") {
			words[n-1] += " " + f
			continue
		}
		words = append(words, f)
	}
	for i, word := range words {
		if i > 0 && len([]rune(line))+1+len([]rune(word))+2 > width {
			b.WriteString(line + " \\\n")
			line = strings.Repeat(" ", len(prefix)+4)
		} else if i > 0 {
			line += " "
		}
		line += word
	}
	return b.String() + line
}

// maxSweepLines bounds the failures a sweep lists; the rest is counted.
const maxSweepLines = 10

// writeSweepFailures lists a sweep's failures as the matrix lists its
// violations, each with the command that replays it: single crashes
// first, and of the failures that end with the same crash point, relays
// and outcome only the first (the crash before it is seldom the cause).
func writeSweepFailures(w io.Writer, sw sim.Sweep) {
	failures := slices.Clone(sw.Failures)
	slices.SortStableFunc(failures, func(a, b sim.SweepFailure) int { return len(a.Crashes) - len(b.Crashes) })
	seen := map[string]bool{}
	shown := 0
	for _, f := range failures {
		var points, parts []string
		for _, c := range f.Crashes {
			points = append(points, c.Point)
			parts = append(parts, fmt.Sprintf("%s@%d", c.Point, c.Occurrence))
		}
		key := fmt.Sprint(f.Relays, points[len(points)-1], f.Outcome)
		if seen[key] || seen[fmt.Sprint(f.Relays, points[0], f.Outcome)] {
			continue // shown already, or the first crash alone does it
		}
		seen[key] = true
		if shown == maxSweepLines {
			shown++
			continue
		}
		shown++
		detail := ""
		if len(f.Violations) > 0 {
			detail = ": " + f.Violations[0].String()
		}
		fmt.Fprintln(w, hanging("    ", "      ", trf(w, "%s after a crash at %s%s", f.Outcome, strings.Join(parts, tr(w, ", then at ")), detail)))
		cmd := fmt.Sprintf("%s scenario %s --variant %s --seed %d", programName(), strings.Join(parts, "+"), sw.Variant, scenarios.MatrixSeed)
		if f.Relays > 1 {
			cmd += fmt.Sprintf(" --relays %d", f.Relays)
		}
		fmt.Fprintln(w, command(tr(w, "      replay: "), cmd))
	}
	if shown > maxSweepLines {
		fmt.Fprint(w, trf(w, "    ... and %d more (%d failing runs in all)\n", shown-maxSweepLines, len(sw.Failures)))
	}
}
