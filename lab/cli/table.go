package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"outboxlab/lang"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

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
// violation red, - (never reached) dim. Widths do not change, so the columns stay aligned.
func colourize(text string) string {
	const reset = "\x1b[0m"
	paint := map[string]string{"✓": "\x1b[32m", "-": "\x1b[2m"}
	for _, o := range badOutcomes() {
		paint[o.String()], paint[o.Letter()] = "\x1b[31m", "\x1b[31m"
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
	fmt.Fprint(w, inf(w, lang.Text{
		EN: "Crash matrix: %d variant(s) x %d points, standard workload (%d commands), seed %d\n\n",
		DE: "Crash-Matrix: %d Variante(n) x %d Punkte, Standard-Arbeitslast (%d Befehle), Seed %d\n\n"},
		len(variants), len(m.Points), len(m.Workload), m.Seed))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, in(w, lang.Text{EN: "point\tkind", DE: "Punkt\tArt"}))
	for _, v := range variants {
		fmt.Fprintf(tw, "\t%s", v.Name)
	}
	fmt.Fprintln(tw)
	for _, p := range m.Points {
		fmt.Fprintf(tw, "%s\t%s", p.ID, in(w, kindText(p.Kind)))
		for _, v := range variants {
			fmt.Fprintf(tw, "\t%s", mark(cellAt(cells, v.Name, p.ID)))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	writeLegend(w, false)
	writeFindings(w, cells)
}

// compactWidth is how many columns the compact table may take.
const compactWidth = 100

// writeCompactTable is the matrix in 100 columns: a row per variant, a
// numbered column per point, the points' key below. When the points do not
// fit side by side, the crash points and the faults are two tables, one
// below the other.
func writeCompactTable(w io.Writer, m sim.Matrix, variants []variant.Variant, cells []sim.Cell) {
	fmt.Fprint(w, inf(w, lang.Text{EN: "Crash matrix: %d variant(s) x %d points, standard workload (%d commands), seed %d\n\n", DE: "Crash-Matrix: %d Variante(n) x %d Punkte, Standard-Arbeitslast (%d Befehle), Seed %d\n\n"},
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
		fmt.Fprintf(w, "%-*s", name, in(w, lang.Text{EN: "variant", DE: "Variante"}))
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
	fmt.Fprintln(w, in(w, lang.Text{EN: "\nPoints:", DE: "\nPunkte:"}))
	var key []string
	for i, p := range m.Points {
		key = append(key, fmt.Sprintf("%2d %s (%s)", i+1, p.ID, in(w, kindText(p.Kind))))
	}
	writeColumns(w, key, 2)
	writeLegend(w, true)
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
