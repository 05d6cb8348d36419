package cli

import (
	"fmt"
	"io"

	"outboxlab/lang"
	"outboxlab/sim"
	"outboxlab/variant"
)

func writeMatrixMarkdown(w io.Writer, m sim.Matrix, variants []variant.Variant, cells []sim.Cell) {
	fmt.Fprint(w, inf(w, lang.Text{EN: "## Crash matrix\n\n%d variant(s) at %d points, standard workload (%d commands), seed %d.\n\n", DE: "## Crash-Matrix\n\n%d Variante(n) an %d Punkten, Standard-Arbeitslast (%d Befehle), Seed %d.\n\n"},
		len(variants), len(m.Points), len(m.Workload), m.Seed))
	fmt.Fprint(w, in(w, lang.Text{EN: "| point | kind |", DE: "| Punkt | Art |"}))
	for _, v := range variants {
		fmt.Fprintf(w, " %s |", v.Name)
	}
	fmt.Fprint(w, "\n|---|---|")
	for range variants {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, p := range m.Points {
		fmt.Fprintf(w, "| `%s` | %s |", p.ID, in(w, kindText(p.Kind)))
		for _, v := range variants {
			fmt.Fprintf(w, " %s |", mark(cellAt(cells, v.Name, p.ID)))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, in(w, lang.Text{EN: "\n### Legend\n\n", DE: "\n### Legende\n\n"}))
	for _, l := range legend(w) {
		fmt.Fprintf(w, "- `%s` %s\n", l.word, l.meaning)
	}
	fmt.Fprint(w, in(w, lang.Text{EN: "\n### Findings\n\n", DE: "\n### Befunde\n\n"}))
	for _, c := range cells {
		if c.Counterexample == nil && c.Matches() {
			continue
		}
		fmt.Fprint(w, inf(w, lang.Text{EN: "- **%s** at `%s`: %s (%s)\n", DE: "- **%s** bei `%s`: %s (%s)\n"}, c.Variant, c.Point.ID, c.Outcome, declared(w, c)))
		for _, v := range c.Violations {
			fmt.Fprintf(w, "  - %s\n", v.In(langOf(w)))
		}
		if c.Counterexample != nil {
			fmt.Fprint(w, inf(w, lang.Text{EN: "  - replay: `%s`\n", DE: "  - Wiederholen: `%s`\n"}, withLang(w, c.Counterexample.Command(programName()))))
		}
		for _, u := range c.Unhandled {
			fmt.Fprint(w, inf(w, lang.Text{EN: "  - %s: an error the process should have handled itself (Relay.Run stops at it)\n", DE: "  - %s: ein Fehler, den der Prozess selbst hätte behandeln müssen (Relay.Run hört dabei auf)\n"}, u))
		}
		if c.MisstepRun != nil {
			fmt.Fprint(w, inf(w, lang.Text{EN: "  - replay: `%s`\n", DE: "  - Wiederholen: `%s`\n"}, withLang(w, c.MisstepRun.Command(programName()))))
		}
	}
}
