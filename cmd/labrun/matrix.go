package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

func runMatrix(args []string, stdout io.Writer) error {
	const synopsis = "matrix [--variant V]... [--format table|markdown|json]"
	fs := newFlags("matrix", synopsis, stdout)
	var variants list
	format := fs.formatFlag("table", "markdown", "json")
	fs.Var(&variants, "variant", "a variant to include (repeatable; default: all): "+strings.Join(scenarios.VariantNames(), ", "))
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	selected, err := selectVariants(variants)
	if err != nil {
		return err
	}
	m := scenarios.Matrix()
	cells, err := m.Run(selected)
	if err != nil {
		return err
	}
	var sweeps []sim.Sweep
	for _, v := range selected {
		if v.Correct {
			sw, err := m.Sweep(v)
			if err != nil {
				return err
			}
			sweeps = append(sweeps, sw)
		}
	}
	switch format.value {
	case "json":
		err = writeMatrixJSON(stdout, m, selected, cells, sweeps)
	case "markdown":
		writeMatrixMarkdown(stdout, m, selected, cells)
		writeSweeps(stdout, sweeps)
	default:
		var table strings.Builder
		writeMatrixTable(&table, m, selected, cells)
		writeSweeps(&table, sweeps)
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

// writeSweeps reports the sweeps of the correct variants beyond the rows.
func writeSweeps(w io.Writer, sweeps []sim.Sweep) {
	if len(sweeps) == 0 {
		return
	}
	fmt.Fprintln(w, "\nBeyond the rows, the correct variants are crashed at every point they reach, at every")
	fmt.Fprintln(w, "occurrence, and again at every point reached after that (double crashes, recovery included),")
	fmt.Fprintln(w, "with one relay and again with two where the variant supports two:")
	for _, sw := range sweeps {
		verdict := "all OK"
		if n := len(sw.Failures); n > 0 {
			verdict = fmt.Sprintf("%d FAILED", n)
		}
		fmt.Fprintf(w, "  %-20s %3d points, %4d runs, %s\n", sw.Variant, sw.Points, sw.Runs, verdict)
		for _, f := range sw.Failures {
			fmt.Fprintf(w, "    %d relay(s), crashes %v: %s %v %v\n", f.Relays, f.Crashes, f.Outcome, f.Violations, f.Unsafe)
		}
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
		v, err := scenarios.FindVariant(n)
		if err != nil {
			return nil, usageError{err.Error()}
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
	paint := map[string]string{"✓": "\x1b[32m", "n/a": "\x1b[2m"}
	for _, o := range []string{"LOST", "PHANTOM", "DUPLICATE", "OUT_OF_ORDER", "STUCK"} {
		paint[o] = "\x1b[31m"
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if !strings.Contains(line, "  crash  ") && !strings.Contains(line, "  fault  ") {
			continue // only the rows of the table
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
	fmt.Fprint(w, "| point | kind |")
	for _, v := range variants {
		fmt.Fprintf(w, " %s |", v.Name)
	}
	fmt.Fprint(w, "\n|---|---|")
	for range variants {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, p := range m.Points {
		fmt.Fprintf(w, "| `%s` | %s |", p.ID, p.Kind)
		for _, v := range variants {
			fmt.Fprintf(w, " %s |", mark(cellAt(cells, v.Name, p.ID)))
		}
		fmt.Fprintln(w)
	}
	writeLegend(w)
	writeFindings(w, cells)
}

func writeLegend(w io.Writer) {
	fmt.Fprint(w, `
Legend: ✓ all invariants hold   n/a the variant never reaches this point
  LOST          a committed change has no effect downstream
  PHANTOM       a downstream effect for a change never committed
  DUPLICATE     a business effect applied more than once
  OUT_OF_ORDER  an older event applied after a newer one of the same order
  STUCK         a message neither SENT nor DEAD_LETTER after quiesce
  MISMATCH      an effect that differs from the committed change (amount, kind)
  UNSAFE        a safety breach during the run (two live owners, a write after SENT)
  GAVE_UP       a dead letter although every fault was transient
  STORM         more publishes than the retry policy allows
  !             the cell disagrees with what the variant declares
`)
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
		if c.Counterexample == nil {
			if !c.Matches() {
				fmt.Fprintf(w, "%s at %s: %s, but the variant declares %s\n", c.Variant, c.Point.ID, c.Outcome, c.Expected)
			}
			continue
		}
		note := "as declared"
		if !c.Matches() {
			note = "but the variant declares " + c.Expected
		}
		fmt.Fprintf(w, "%s at %s: %s (%s)\n", c.Variant, c.Point.ID, c.Outcome, note)
		for _, v := range c.Violations {
			fmt.Fprintf(w, "  %s\n", v)
		}
		fmt.Fprintf(w, "  replay: %s\n", c.Counterexample.Replay(c.Variant))
	}
	if mismatches == 0 {
		fmt.Fprintln(w, "Every cell matches its variant's declaration.")
	} else {
		fmt.Fprintf(w, "%d cell(s) disagree with their variant's declaration.\n", mismatches)
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
	ID   string `json:"id"`
	Kind string `json:"kind"`
}

type jsonCell struct {
	Variant        string         `json:"variant"`
	Point          string         `json:"point"`
	Outcome        string         `json:"outcome"`
	Expected       string         `json:"expected"`
	Runs           int            `json:"runs"`
	Violations     []string       `json:"violations"`
	Counterexample *jsonCounterex `json:"counterexample"`
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
			jc.Counterexample = &jsonCounterex{Seed: ce.Seed, Schedule: ce.Schedule, Replay: ce.Replay(c.Variant)}
		}
		out.Cells = append(out.Cells, jc)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
