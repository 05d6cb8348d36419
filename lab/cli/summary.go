package cli

import (
	"fmt"
	"io"
	"strings"

	"outboxlab/lab/verdict"
	"outboxlab/lang"
	"outboxlab/sim"
	"outboxlab/variant"
)

// nextSteps are the commands the summary suggests, with what each shows.
var nextSteps = []struct {
	args string
	text lang.Text
}{
	{"matrix", lang.Text{EN: "every cell, every violation, its replay", DE: "Zellen und Verletzungen, wiederholbar"}},
	{"scenario mistake/dual-write", lang.Text{EN: "one mistake's story as a timeline", DE: "ein Fehler, als Zeitleiste erzählt"}},
	{"list", lang.Text{EN: "the variants, points and stories", DE: "die Varianten, Punkte und Geschichten"}},
	{"explore --variant outbox", lang.Text{EN: "random schedules against the reference", DE: "zufällige Abläufe gegen die Referenz"}},
}

// depthMeaning explains the depth where the summary names it.
var depthMeaning = lang.Text{
	EN: "beyond the points, for a variant that claims to be correct: crashed twice at every point, every commit failed once, the relays polled as Relay.Run polls them, random schedules (labrun help)",
	DE: "über die Punkte hinaus, für eine Variante, die behauptet, korrekt zu sein: zweimal an jedem Punkt abgestürzt, jeder Commit einmal gescheitert, die Relays gepollt wie in Relay.Run, zufällige Abläufe (labrun help)",
}

// writeSummary is what labrun prints without a command: every variant on
// one line (wrapped, never cut), where it breaks and how, and what to run
// next. It fits 100 columns and one screen.
func writeSummary(w io.Writer, m sim.Matrix, variants []variant.Variant, verdicts []verdict.Verdict) {
	runs, mismatches := 0, 0
	for _, v := range verdicts {
		for _, c := range v.Cells {
			runs += c.Runs
			if !c.Matches() {
				mismatches++
			}
		}
	}
	fmt.Fprint(w, inf(w, lang.Text{EN: "outboxlab: %d variants at %d crash points and faults (%s runs, seed %d)\n\n", DE: "outboxlab: %d Varianten an %d Absturzpunkten und Störungen (%s Läufe, Seed %d)\n\n"}, len(variants), len(m.Points), lang.Count(int64(runs)), m.Seed))
	for _, v := range verdicts {
		fmt.Fprintln(w, lang.Wrap(fmt.Sprintf("%-24s ", v.Variant), strings.Repeat(" ", 27), summaryVerdict(w, m, v), width))
	}
	fmt.Fprintln(w)
	if mismatches == 0 {
		fmt.Fprintln(w, in(w, lang.Text{EN: "Every cell matches its variant's declaration: the mistakes fail where the chapters say.", DE: "Jede Zelle stimmt mit ihrer Variante überein: die Fehler scheitern, wo die Kapitel es sagen."}))
	} else {
		fmt.Fprint(w, inf(w, lang.Text{EN: "%d cell(s) disagree with their variant's declaration (marked !): see `%s matrix`.\n", DE: "%d Zelle(n) widersprechen der Erwartung ihrer Variante (mit ! markiert): siehe `%s matrix`.\n"}, mismatches, withLang(w, programName())))
	}
	omit := []string{variant.NotApplicable.Letter()} // the summary shows no cell
	if mismatches == 0 {
		omit = append(omit, "!")
	}
	writeLegend(w, false, omit...)
	if len(verdicts) > 0 && verdicts[0].Depth != verdict.Quick {
		fmt.Fprintln(w, lang.Wrap(fmt.Sprintf("  %-13s ", verdicts[0].Depth), strings.Repeat(" ", 16), in(w, depthMeaning), width))
	}
	fmt.Fprintln(w, in(w, lang.Text{EN: "\nNext:", DE: "\nAls Nächstes:"}))
	// A command and what it shows side by side, or, where that does not
	// fit a screen (German: its commands carry --lang de), one below the
	// other.
	column, text := 0, 0
	for _, next := range nextSteps {
		column = max(column, len(withLang(w, programName()+" "+next.args)))
		text = max(text, len([]rune(in(w, next.text))))
	}
	for _, next := range nextSteps {
		cmd := withLang(w, programName()+" "+next.args)
		if 2+column+3+text > width {
			fmt.Fprintf(w, "  %s\n      %s\n", cmd, in(w, next.text))
			continue
		}
		fmt.Fprintf(w, "  %-*s   %s\n", column, cmd, in(w, next.text))
	}
}

// summaryVerdict says in a few words how v fared: ✓ everywhere (and what
// the stages beyond the matrix found), or each outcome with the first
// point that showed it.
func summaryVerdict(w io.Writer, m sim.Matrix, v verdict.Verdict) string {
	var red []sim.Cell // in the matrix's order
	bad := ""
	for _, p := range m.Points {
		c := cellAt(v.Cells, v.Variant, p.ID)
		if !c.Matches() {
			bad = "! "
		}
		if c.Outcome > variant.OK {
			red = append(red, c)
		}
	}
	byOutcome := verdict.GroupBy(red, func(c sim.Cell) variant.Outcome { return c.Outcome })
	beyond := ""
	if v.Correct && v.Depth != verdict.Quick {
		runs, failed := 0, 0
		for _, s := range v.Stages {
			if s.Stage != verdict.StageMatrix {
				runs, failed = runs+s.Runs, failed+s.Failed
			}
		}
		beyond = inf(w, lang.Text{EN: "; %s: %s runs, all OK", DE: "; %s: %s Läufe, alle OK"}, v.Depth, lang.Count(int64(runs)))
		if failed > 0 {
			beyond = inf(w, lang.Text{EN: "; %s: %s of %s runs FAILED", DE: "; %s: %s von %s Läufen FEHLGESCHLAGEN"}, v.Depth, lang.Count(int64(failed)), lang.Count(int64(runs)))
		}
	}
	if len(byOutcome) == 0 {
		return bad + in(w, lang.Text{EN: "✓ at every point", DE: "✓ an jedem Punkt"}) + beyond
	}
	var parts []string
	for _, cells := range byOutcome {
		part := inf(w, lang.Text{EN: "%s at %s", DE: "%s bei %s"}, cells[0].Outcome, cells[0].Point.ID)
		if len(cells) > 1 {
			part += inf(w, lang.Text{EN: " (+%d)", DE: " (+%d)"}, len(cells)-1) // as the grading writes it: a row of the summary fits a line
		}
		parts = append(parts, part)
	}
	return bad + strings.Join(parts, "; ") + beyond
}
