package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"outboxlab/lab/verdict"
	"outboxlab/lang"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// runSummary is labrun without a command: every variant graded, told in
// one line each.
func runSummary(args []string, stdout io.Writer) error {
	fs := newFlags("summary", "", lang.Text{
		EN: "One line per variant: ✓ where every invariant holds at every point (and, at depth course, beyond the matrix), else each outcome with the first point that showed it. What labrun does without a command.",
		DE: "Eine Zeile je Variante: ✓, wo an jedem Punkt (und, bei Tiefe course, über die Matrix hinaus) jede Invariante gilt, sonst jedes Ergebnis mit dem ersten Punkt, der es zeigte. Was labrun ohne Befehl tut.",
	}, stdout)
	depth := fs.depthFlag()
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	return matrixCommand(stdout, scenarios.Variants(), "summary", false, depth.value)
}

func runMatrix(args []string, stdout io.Writer) error {
	fs := newFlags("matrix", "", lang.Text{
		EN: "The whole crash matrix: a row per variant and a numbered column per point, the points and the legend below, then every violation with the command that replays it, and what the stages beyond the matrix found for the variants that claim to be correct.",
		DE: "Die ganze Crash-Matrix: eine Zeile je Variante und eine nummerierte Spalte je Punkt, darunter die Punkte und die Legende, dann jede Verletzung mit dem Befehl, der sie wiederholt, und was die Stufen über die Matrix hinaus bei den Varianten fanden, die behaupten, korrekt zu sein.",
	}, stdout)
	variants := fs.repeated("variant", "V", lang.Textf(lang.Text{
		EN: "a variant to include (default: all): %s",
		DE: "eine Variante, die dazugehört (Standard: alle): %s",
	}, strings.Join(scenarios.VariantNames(), ", ")))
	depth := fs.depthFlag()
	format := fs.formatFlag("table", "markdown", "json", "html")
	wide := fs.boolean("wide", lang.Text{
		EN: "the table with one column per variant and one row per point, and the outcome words (wider than 100 columns)",
		DE: "die Tabelle mit einer Spalte je Variante, einer Zeile je Punkt und den Ergebniswörtern (breiter als 100 Spalten)",
	})
	relay := declareRelayFlags(fs)
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	settings, err := relay.settings()
	if err != nil {
		return err
	}
	selected, err := selectVariants(*variants)
	if err != nil {
		return err
	}
	if len(settings) == 0 {
		return matrixCommand(stdout, selected, format.value, *wide, depth.value)
	}
	return tunedMatrix(stdout, fs, tunedRun{selected, len(*variants) > 0, settings, format.value, *wide, depth.value})
}

// depth is --depth: how hard the grader grades.
type depth struct{ value verdict.Depth }

func (d *depth) String() string { return d.value.String() }

func (d *depth) Set(s string) error {
	v, err := verdict.ParseDepth(s)
	d.value = v
	return err
}

// depthFlag adds --depth, course by default.
func (f *flags) depthFlag() *depth {
	d := &depth{value: verdict.Course}
	f.doc(flagDoc{name: "depth", value: strings.Join(verdict.Depths, "|"), text: lang.Text{
		EN: "how hard to grade: quick (the matrix), course (also the double-crash sweep, the failure sweep, the polled matrix and exploration at several seeds), full (many more random schedules) (default course)",
		DE: "wie streng bewertet wird: quick (die Matrix), course (auch der doppelte Absturz-Sweep, der Failure-Sweep, die gepollte Matrix und Exploration mit mehreren Seeds), full (viel mehr zufällige Abläufe) (Standard course)",
	}})
	f.Var(d, "depth", "")
	return d
}

// matrixCommand grades the selected variants at depth d and writes the
// verdicts in the format asked for.
func matrixCommand(stdout io.Writer, selected []variant.Variant, format string, wide bool, d verdict.Depth) error {
	return matrixCommandWith(stdout, selected, matrixOutput{format: format, wide: wide, depth: d})
}

// matrixOutput is how a matrix is graded and written: its format, the
// wide table or not, the grader's depth, and the flags every replay
// command repeats (a changed relay policy).
type matrixOutput struct {
	format string
	wide   bool
	depth  verdict.Depth
	flags  string
}

// matrixCommandWith grades the selected variants as out says and writes
// the verdicts.
func matrixCommandWith(stdout io.Writer, selected []variant.Variant, out matrixOutput) error {
	m := scenarios.Matrix()
	verdicts, err := gradeAll(selected, out.depth)
	if err != nil {
		return err
	}
	if out.flags != "" {
		verdicts = withReplayFlags(verdicts, out.flags)
	}
	format, wide, d := out.format, out.wide, out.depth
	var cells []sim.Cell
	for _, v := range verdicts {
		cells = append(cells, v.Cells...)
	}
	switch format {
	case "json":
		err = writeMatrixJSON(stdout, m, selected, cells, verdicts)
	case "markdown":
		writeMatrixMarkdown(stdout, m, selected, cells)
		writeBeyond(stdout, verdicts, d)
	case "summary":
		writeSummary(stdout, m, selected, verdicts)
	case "html":
		err = writeMatrixHTML(stdout, m, selected, cells)
	default:
		table := bufferFor(stdout)
		if wide {
			writeMatrixTable(table, m, selected, cells)
		} else {
			writeCompactTable(table, m, selected, cells)
		}
		writeBeyond(table, verdicts, d)
		text := table.String()
		if useColour(stdout) {
			text = colourize(text)
		}
		_, err = io.WriteString(stdout, text)
	}
	if err != nil {
		return err
	}
	for _, v := range verdicts {
		if !v.Passed() {
			return errMismatch
		}
	}
	return nil
}

// gradeAll grades each selected variant at depth d. (A variable: the
// package's tests share one grading between the outputs of the same
// variants.)
var gradeAll = func(selected []variant.Variant, d verdict.Depth) ([]verdict.Verdict, error) {
	var out []verdict.Verdict
	for _, v := range selected {
		vd, err := verdict.Grade(v, verdict.Options{Depth: d})
		if errors.Is(err, verdict.ErrNoSuchRow) {
			return nil, usageFrom(err) // the lab's own variants are held to their rows by its tests
		}
		if err != nil {
			return nil, err
		}
		out = append(out, vd)
	}
	return out, nil
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
			return nil, usageFrom(err)
		}
		out = append(out, v)
	}
	return out, nil
}

// in returns t in w's language.
// kindText is a point's kind as a learner reads it.
func kindText(k sim.PointKind) lang.Text {
	if k == sim.KindFault {
		return lang.Text{EN: "fault", DE: "Störung"}
	}
	return lang.Text{EN: "crash", DE: "Absturz"}
}

// inf is lang.Textf in w's language.
func inf(w io.Writer, t lang.Text, args ...any) string { return lang.Textf(t, args...).In(langOf(w)) }

// withLang is a labrun command as w's reader would type it again: with
// --lang de when w is German, so that a suggested command keeps the
// language.
func withLang(w io.Writer, cmd string) string {
	if german(w) {
		return cmd + " --lang de"
	}
	return cmd
}

// in returns t in w's language.
func in(w io.Writer, t lang.Text) string {
	if german(w) {
		return t.In(lang.German)
	}
	return t.In(lang.English)
}

// cellAt returns the cell of variant v at point p.
func cellAt(cells []sim.Cell, v, p string) sim.Cell {
	for _, c := range cells {
		if c.Variant == v && c.Point.ID == p {
			return c
		}
	}
	return sim.Cell{Outcome: variant.NotApplicable}
}

// mark renders a cell: ✓ for OK, the outcome word otherwise, and a trailing
// "!" where the cell disagrees with the variant's declaration.
func mark(c sim.Cell) string {
	s := c.Outcome.String()
	switch c.Outcome {
	case variant.OK:
		s = "✓"
	case variant.NotApplicable:
		s = c.Outcome.Letter() // the one mark of every table and legend
	}
	if !c.Matches() {
		s += "!"
	}
	return s
}

// letter renders a cell in one or two characters: ✓, -, an outcome's
// letter (variant.Outcome.Letter), and "!" where the cell disagrees with
// the declaration.
func letter(c sim.Cell) string {
	s := c.Outcome.Letter()
	if !c.Matches() {
		s += "!"
	}
	return s
}

// disagrees is what the "!" of a matrix cell means.
var disagrees = lang.Text{EN: "the cell disagrees with what the variant declares", DE: "die Zelle widerspricht der Erwartung der Variante"}

// badOutcomes are the outcomes a matrix cell can show other than OK,
// worst first: the order of every legend and key. A cell is one run's
// verdict; NONDETERMINISTIC is a grading's, of two runs, and no cell
// shows it.
func badOutcomes() []variant.Outcome {
	out := slices.DeleteFunc(variant.Outcomes()[1:], func(o variant.Outcome) bool { return o == variant.NonDeterministic })
	slices.Reverse(out)
	return out
}

// legendEntry is one line of a matrix's legend: a mark or outcome word,
// its letter in the compact table ("" for none) and what it means in w's
// language.
type legendEntry struct{ word, letter, meaning string }

// legend is what the words and marks of a matrix mean, from the outcomes
// themselves (variant.Outcome.Meaning).
func legend(w io.Writer) []legendEntry {
	out := []legendEntry{
		{"✓", "", in(w, variant.OK.Meaning())},
		{variant.NotApplicable.Letter(), "", in(w, variant.NotApplicable.Meaning())},
	}
	for _, o := range badOutcomes() {
		out = append(out, legendEntry{o.String(), o.Letter(), in(w, o.Meaning())})
	}
	return append(out, legendEntry{"!", "", in(w, disagrees)})
}

// writeLegend writes the one legend of a table: every mark and outcome
// word with what it means (but the marks in omit, which the output does
// not show), and with letters the letter each outcome has in the compact
// table.
func writeLegend(w io.Writer, letters bool, omit ...string) {
	fmt.Fprintln(w, in(w, lang.Text{EN: "\nLegend:", DE: "\nLegende:"}))
	var words, meanings []string
	column := 0
	for _, e := range legend(w) {
		if slices.Contains(omit, e.word) {
			continue
		}
		word := e.word
		if letters && e.letter != "" {
			word = e.letter + " " + e.word
		}
		words, meanings = append(words, word), append(meanings, e.meaning)
		column = max(column, len([]rune(word)))
	}
	for i, word := range words {
		fmt.Fprintln(w, lang.Wrap(fmt.Sprintf("  %-*s  ", column, word), strings.Repeat(" ", column+4), meanings[i], width))
	}
}

// width is what labrun's default outputs fit in.
const width = 100

// command prints a shell command after prefix, continued with a backslash
// where it would pass width, so that it still pastes as one command.
func command(prefix, cmd string) string { return verdict.Command(prefix, cmd, width) }

// declared says how a cell stands to its variant's declaration.
func declared(w io.Writer, c sim.Cell) string {
	switch {
	case c.Matches():
		return in(w, lang.Text{EN: "as declared", DE: "wie erwartet"})
	case c.OutcomeMatches():
		return in(w, lang.Text{EN: "as declared, but a process misstepped", DE: "wie erwartet, aber ein Prozess machte einen Fehltritt"})
	}
	return inf(w, lang.Text{EN: "but the variant declares %s", DE: "die Variante erwartet aber %s"}, c.Expected)
}

// missteps lists a cell's missteps, each in a line as w's language says
// it.
func missteps(w io.Writer, m sim.Missteps) []string { return verdict.MisstepLines(langOf(w), m) }

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
		if c.Counterexample == nil && c.MisstepRun == nil {
			if !c.Matches() {
				fmt.Fprint(w, inf(w, lang.Text{EN: "%s at %s: %s, but the variant declares %s\n", DE: "%s bei %s: %s, die Variante erwartet aber %s\n"}, c.Variant, c.Point.ID, c.Outcome, c.Expected))
			}
			continue
		}
		fmt.Fprint(w, inf(w, lang.Text{EN: "%s at %s: %s (%s)\n", DE: "%s bei %s: %s (%s)\n"}, c.Variant, c.Point.ID, c.Outcome, declared(w, c)))
		for _, v := range c.Violations {
			fmt.Fprintln(w, lang.Wrap("  ", "    ", v.In(langOf(w)), width))
		}
		if c.Counterexample != nil {
			fmt.Fprintln(w, command(in(w, lang.Text{EN: "  replay: ", DE: "  Wiederholen: "}), withLang(w, c.Counterexample.Command(programName()))))
		}
		for _, m := range missteps(w, c.Missteps) {
			fmt.Fprintln(w, lang.Wrap("  ", "    ", m, width))
		}
		if c.MisstepRun != nil {
			fmt.Fprintln(w, command(in(w, lang.Text{EN: "  replay: ", DE: "  Wiederholen: "}), withLang(w, c.MisstepRun.Command(programName()))))
		}
	}
	if mismatches == 0 {
		fmt.Fprintln(w, in(w, lang.Text{EN: "Every cell matches its variant's declaration.", DE: "Jede Zelle stimmt mit der Erwartung ihrer Variante überein."}))
	} else {
		fmt.Fprint(w, inf(w, lang.Text{EN: "%d cell(s) disagree with their variant's declaration.\n", DE: "%d Zelle(n) widersprechen der Erwartung ihrer Variante.\n"}, mismatches))
	}
}

// beyondIntro explains the stages beyond the matrix.
var beyondIntro = lang.Text{
	EN: "Beyond the matrix, each variant that claims to be correct is graded at depth %s: at rows that contradict what code may assume, an order's tenth event, a field its contract does not name, more waiting messages than a batch, a cleanup on a clock that runs ahead, a relay restarting once a dead letter exists (assumptions), crashed twice at every point it reaches (sweep), with each commit failed once (failure sweep), its relays polled as Relay.Run polls them (polled matrix), in random schedules (exploration), and with runs made twice that must go the same way (replays):",
	DE: "Über die Matrix hinaus wird jede Variante, die behauptet, korrekt zu sein, mit Tiefe %s bewertet: an Zeilen, die widerlegen, was Code annehmen mag, das zehnte Ereignis einer Bestellung, ein Feld, das ihr Vertrag nicht nennt, mehr wartende Nachrichten als ein Batch, eine Bereinigung auf einer Uhr, die vorgeht, ein Relay, das neu startet, sobald es einen Dead Letter gibt (Annahmen), zweimal an jedem Punkt abgestürzt, den sie erreicht (Sweep), mit jedem Commit einmal gescheitert (Failure-Sweep), ihre Relays gepollt wie in Relay.Run (gepollte Matrix), in zufälligen Abläufen (Exploration) und mit Läufen, die zweimal gemacht denselben Weg gehen müssen (Wiederholungen):",
}

// writeBeyond reports, for each variant that claims to be correct, what
// the stages beyond the matrix found: the runs of each, and one finding
// per cause with the command that replays it.
func writeBeyond(w io.Writer, verdicts []verdict.Verdict, d verdict.Depth) {
	var correct []verdict.Verdict
	for _, v := range verdicts {
		if v.Correct {
			correct = append(correct, v)
		}
	}
	if len(correct) == 0 {
		return
	}
	if d == verdict.Quick {
		fmt.Fprintln(w, "\n"+lang.Wrap("", "", in(w, lang.Text{
			EN: "Depth quick: the matrix alone. --depth course also crashes twice, fails each commit once, polls the relays and explores random schedules.",
			DE: "Tiefe quick: nur die Matrix. --depth course stürzt auch zweimal ab, lässt jeden Commit einmal scheitern, pollt die Relays und erkundet zufällige Abläufe."}), width))
		return
	}
	fmt.Fprintln(w, "\n"+lang.Wrap("", "", fmt.Sprintf(in(w, beyondIntro), d), width))
	for _, v := range correct {
		beyond := v
		beyond.Findings = nil
		for _, f := range v.Findings {
			if f.Stage != verdict.StageMatrix {
				beyond.Findings = append(beyond.Findings, f)
			}
		}
		fmt.Fprintln(w, lang.Wrap(fmt.Sprintf("  %-20s ", v.Variant), strings.Repeat(" ", 25), stagesText(w, beyond), width))
		for _, g := range beyond.Groups() {
			fmt.Fprintln(w, indent("    ", g.Report(langOf(w), lang.Text{}, withLang(w, g.First().Run.Command(programName())), width-4)))
		}
	}
}

// stagesText says what the stages beyond the matrix found, and how many
// runs each made: "all OK: sweep 2033, failure sweep 373, ...".
func stagesText(w io.Writer, v verdict.Verdict) string {
	var parts []string
	for _, s := range v.Stages {
		if s.Stage != verdict.StageMatrix {
			parts = append(parts, fmt.Sprintf("%s %s", in(w, s.Stage.Text()), in(w, lang.Count(int64(s.Runs)))))
		}
	}
	verdictText := in(w, lang.Text{EN: "all OK", DE: "alle OK"})
	if n := len(v.Groups()); n > 0 {
		verdictText = fmt.Sprintf(in(w, lang.Text{EN: "%d cause(s) FAILED", DE: "%d Ursache(n) FEHLGESCHLAGEN"}), n)
	}
	return verdictText + ": " + strings.Join(parts, ", ")
}

// indent puts prefix before every line of text.
func indent(prefix, text string) string {
	return prefix + strings.ReplaceAll(text, "\n", "\n"+prefix)
}
