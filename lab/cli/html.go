package cli

import (
	"io"
	"strings"

	"outboxlab/internal/report"
	"outboxlab/lang"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// writeMatrixHTML writes the matrix as a page whose cells link to their
// counterexamples, each run again with its trace.
func writeMatrixHTML(w io.Writer, m sim.Matrix, variants []variant.Variant, cells []sim.Cell) error {
	page := report.Matrix{
		Title:  strings.TrimSpace(inf(w, lang.Text{EN: "Crash matrix: %d variant(s) x %d points, standard workload (%d commands), seed %d\n\n", DE: "Crash-Matrix: %d Variante(n) x %d Punkte, Standard-Arbeitslast (%d Befehle), Seed %d\n\n"}, len(variants), len(m.Points), len(m.Workload), m.Seed)),
		Points: m.Points,
		Cells:  cells,
		Runs:   map[string]report.Run{},
		Mark:   letter,
	}
	for _, l := range legend(w) {
		word := l.word
		if l.letter != "" {
			word = l.letter + " " + l.word
		}
		page.Legend = append(page.Legend, [2]string{word, l.meaning})
	}
	for _, v := range variants {
		page.Variants = append(page.Variants, v.Name)
		for _, c := range cells {
			run := c.Counterexample
			if run == nil {
				run = c.MisstepRun
			}
			if c.Variant != v.Name || run == nil {
				continue
			}
			sc, err := scenarios.Find(*run)
			if err != nil {
				return err
			}
			summary, _ := scenarioText(w, sc)
			cfg := sc.Config(v, *run)
			cfg.Trace = true
			res, err := sim.Run(cfg)
			if err != nil {
				return err
			}
			page.Runs[report.Key(v.Name, c.Point.ID)] = report.Run{
				Title:   strings.TrimSpace(inf(w, lang.Text{EN: "%s at %s: %s (%s)\n", DE: "%s bei %s: %s (%s)\n"}, v.Name, c.Point.ID, res.Outcome, inf(w, lang.Text{EN: "expected %s", DE: "erwartet %s"}, c.Expected))),
				Summary: summary, Outcome: res.Outcome, Expected: c.Expected, Violations: res.Violations,
				Replay: withLang(w, run.Command(programName())), Trace: res.Trace,
			}
		}
	}
	return report.WriteMatrix(w, page, reportOptions(w))
}

// reportOptions are the HTML report's language for w.
func reportOptions(w io.Writer) report.Options {
	return report.Options{German: german(w)}
}
