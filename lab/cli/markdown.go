package cli

import (
	"fmt"
	"io"

	"outboxlab/lab/variant"
	"outboxlab/sim"
)

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
	for _, l := range legend(w) {
		fmt.Fprintf(w, "- `%s` %s\n", l.word, l.meaning)
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
		if c.MisstepRun != nil {
			fmt.Fprint(w, trf(w, "  - replay: `%s`\n", c.MisstepRun.Replay(programName(), c.Variant)))
		}
	}
}
