package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"outboxlab/lang"
)

// The help is made from what the commands declare: each command's flags
// with their words (flags.go), so that the help cannot leave a flag out.
// `labrun -h` and `labrun help` list every command with its synopsis;
// `labrun help CMD` and `labrun CMD -h` say what each flag does.

// synopsisParts are the synopsis's words, a flag and its value one part:
// a wrapped synopsis breaks between them.
func (f *flags) synopsisParts() []string {
	parts := []string{"labrun", f.Name()}
	if f.Name() == "summary" {
		parts[1] = "[summary]"
	}
	if f.positional != "" {
		parts = append(parts, f.positional)
	}
	for _, d := range append(f.docs, langDoc) {
		if d.positional {
			continue
		}
		s := "--" + d.name
		if d.value != "" {
			s += " " + d.value
		}
		switch {
		case d.required:
		case d.repeated:
			s = "[" + s + "]..."
		default:
			s = "[" + s + "]"
		}
		parts = append(parts, s)
	}
	return parts
}

// help prints the command's help to its output: the synopsis, what the
// command does, and every flag. Asked for the synopsis alone (see
// synopsisOf), it prints just that.
func (f *flags) help() {
	w := f.stdout
	if s, ok := w.(*synopsisWriter); ok {
		s.parts, s.about = f.synopsisParts(), f.about
		f.VisitAll(func(fl *flag.Flag) { s.defined = append(s.defined, fl.Name) })
		return
	}
	l := langOf(w)
	fmt.Fprintf(w, "%s\n\n", lang.WrapParts(lang.Text{EN: "usage:", DE: "Aufruf:"}.In(l), "        ", f.synopsisParts(), width))
	fmt.Fprintf(w, "%s\n", lang.Wrap("", "", f.about.In(l), width))
	fmt.Fprintln(w)
	for _, d := range append(f.docs, langDoc) {
		head := "  --" + d.name
		if d.value != "" {
			head += " " + d.value
		}
		fmt.Fprintf(w, "%s\n%s\n", head, lang.Wrap("      ", "      ", d.text.In(l), width))
	}
}

// synopsisWriter is an output that asks a command for its synopsis and
// what it does, not for its help.
type synopsisWriter struct {
	parts []string
	about lang.Text
	// defined are the flags the command's flag set has, for the test
	// that the help leaves none out.
	defined []string
}

func (*synopsisWriter) Write(p []byte) (int, error) { return len(p), nil }

// synopsisOf asks command c for its synopsis: it runs c with -h into a
// synopsisWriter, which every command's flag parsing answers before it
// does anything else.
func synopsisOf(c subcommand) ([]string, lang.Text) {
	s := describe(c)
	return s.parts, s.about
}

// describe asks command c for its synopsis, what it does and its flags.
func describe(c subcommand) synopsisWriter {
	var s synopsisWriter
	_ = c.run([]string{"-h"}, &s)
	return s
}

// glossary explains the lab's words that a newcomer meets in its output.
var glossary = []struct{ word, text lang.Text }{
	{lang.Text{EN: "point", DE: "Punkt"}, lang.Text{
		EN: "a row of the chapters' crash matrix: a crash point (one side of an effect boundary of one process: relay.after-send is \"the broker acknowledged, SENT not yet recorded\") or a fault (broker-outage, reorder, stall, ...); `labrun list` names them all",
		DE: "eine Zeile der Crash-Matrix aus den Kapiteln: ein Absturzpunkt (eine Seite einer Wirkungsgrenze eines Prozesses: relay.after-send heißt „der Broker hat bestätigt, SENT ist noch nicht eingetragen“) oder eine Störung (broker-outage, reorder, stall, ...); `labrun list` nennt sie alle",
	}},
	{lang.Text{EN: "variant", DE: "Variante"}, lang.Text{
		EN: "one way to build the order service, the relay and billing: outbox is the reference, listen-to-yourself and cdc the correct alternatives, the others the chapters' mistakes",
		DE: "eine Art, Bestellservice, Relay und Billing zu bauen: outbox ist die Referenz, listen-to-yourself und cdc sind die korrekten Alternativen, die anderen die Fehler aus den Kapiteln",
	}},
	{lang.Text{EN: "cell", DE: "Zelle"}, lang.Text{
		EN: "one variant at one point: the worst outcome of every run behind it (each occurrence of a crash point, with one relay and with two)",
		DE: "eine Variante an einem Punkt: das schlimmste Ergebnis aller Läufe dahinter (jedes Vorkommen eines Absturzpunkts, mit einem Relay und mit zweien)",
	}},
	{lang.Text{EN: "sweep", DE: "Sweep"}, lang.Text{
		EN: "beyond the points, for the correct variants: a crash at every point the workload reaches, at every occurrence, then a second crash at every point reached after it (recovery included); and the failure sweep, every commit of the workload failed once",
		DE: "über die Punkte hinaus, für die korrekten Varianten: ein Absturz an jedem Punkt, den die Arbeitslast erreicht, bei jedem Vorkommen, dann ein zweiter an jedem Punkt danach (die Wiederherstellung eingeschlossen); und der Failure-Sweep, jeder Commit der Arbeitslast einmal gescheitert",
	}},
	{lang.Text{EN: "depth", DE: "Tiefe"}, lang.Text{
		EN: "how hard the lab's one grader grades (--depth, -lab.depth): quick is the matrix; course, the default at every door, adds for a variant that claims to be correct the sweeps, the matrix polled as Relay.Run polls, and exploration at up to eight seeds, and for every variant makes a sample of the matrix's runs and every finding's run twice (NONDETERMINISTIC where the two part); full explores much more",
		DE: "wie streng der eine Bewerter des Labors bewertet (--depth, -lab.depth): quick ist die Matrix; course, überall der Standard, wo nichts anderes gesagt ist, fügt für eine Variante, die behauptet, korrekt zu sein, die Sweeps hinzu, die gepollte Matrix wie in Relay.Run und Exploration mit bis zu acht Seeds, und macht für jede Variante eine Stichprobe der Läufe der Matrix und den Lauf jedes Befunds zweimal (NONDETERMINISTIC, wo sich die beiden trennen); full erkundet viel mehr",
	}},
	{lang.Text{EN: "quiesce", DE: "Abklingen"}, lang.Text{
		EN: "after the run: the faults healed, no more crashes, everything runs until nothing is due; then the retention cleanup, the operator's replay of dead letters, and the checker",
		DE: "nach dem Lauf: die Störungen behoben, keine Abstürze mehr, alles läuft, bis nichts mehr fällig ist; dann die Aufbewahrungsbereinigung, das Wiedereinspielen der Dead Letters durch den Betrieb und die Prüfung",
	}},
	{lang.Text{EN: "situation", DE: "Situation"}, lang.Text{
		EN: "what a run went through that a point exists to produce (a duplicate the inbox absorbed, a lease taken over, a gap parked, ...): a point whose runs never reach theirs fails, and explore counts them",
		DE: "was ein Lauf durchmachte, wofür ein Punkt da ist (ein Duplikat, das die Inbox abfing, eine übernommene Lease, eine geparkte Lücke, ...): ein Punkt, dessen Läufe sie nie erreichen, scheitert, und explore zählt sie",
	}},
	{lang.Text{EN: "shrunk", DE: "verkleinert"}, lang.Text{
		EN: "explore's counterexample made as small as it still fails: fewer orders, faults and crashes, one at a time taken away",
		DE: "das Gegenbeispiel von explore, so klein gemacht, wie es noch scheitert: weniger Bestellungen, Störungen und Abstürze, eins nach dem anderen weggenommen",
	}},
	{lang.Text{EN: "replay", DE: "Wiederholen"}, lang.Text{
		EN: "the command printed with every failure that plays its run again, as a timeline",
		DE: "der Befehl, der bei jedem Befund steht und seinen Lauf als Zeitleiste wiederholt",
	}},
}

// printUsage prints the general help: every command with its synopsis,
// the exit codes and the lab's words.
func printUsage(w io.Writer) {
	l := langOf(w)
	fmt.Fprintln(w, lang.Text{
		EN: "usage: labrun [COMMAND] [flags]   (no command: the summary)",
		DE: "Aufruf: labrun [BEFEHL] [Schalter]   (ohne Befehl: die Übersicht)",
	}.In(l))
	fmt.Fprintln(w)
	for _, c := range commands() {
		parts, about := synopsisOf(c)
		fmt.Fprintln(w, lang.Wrap(fmt.Sprintf("  %-9s", c.name), strings.Repeat(" ", 12), about.In(l), width))
		fmt.Fprintln(w, lang.WrapParts(strings.Repeat(" ", 12), strings.Repeat(" ", 16), parts[:len(parts)-1], width)) // --lang: below
	}
	fmt.Fprintln(w, lang.Wrap("  help     ", strings.Repeat(" ", 12), lang.Text{
		EN: "What a command does and each of its flags.",
		DE: "Was ein Befehl tut und jeder seiner Schalter.",
	}.In(l), width))
	fmt.Fprintln(w, strings.Repeat(" ", 12)+lang.Text{EN: "labrun help [COMMAND]", DE: "labrun help [BEFEHL]"}.In(l))
	fmt.Fprintln(w)
	for _, t := range []lang.Text{
		{EN: "Every command takes --lang en|de: " + langDoc.text.EN + ".",
			DE: "Jeder Befehl nimmt --lang en|de: " + langDoc.text.DE + "."},
		{EN: "`labrun help COMMAND` (or `labrun COMMAND -h`) says what each of a command's flags does.",
			DE: "`labrun help BEFEHL` (oder `labrun BEFEHL -h`) sagt, was jeder Schalter eines Befehls tut."},
		{EN: "Exit codes: 0 when everything matches what the variants declare (a mistake that fails where it declares exits 0 too: the output says \"fails as declared\", and OK only where every run is OK), 1 when a cell or check disagrees, 2 on bad usage.",
			DE: "Exit-Codes: 0, wenn alles zu dem passt, was die Varianten erwarten (auch ein Fehler, der scheitert, wo er es erwartet, endet mit 0: die Ausgabe sagt „scheitert wie erwartet“, und OK nur, wo jeder Lauf OK ist), 1, wenn eine Zelle oder Prüfung widerspricht, 2 bei falscher Bedienung."},
	} {
		fmt.Fprintln(w, lang.Wrap("", "", t.In(l), width))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, lang.Text{EN: "The lab's words:", DE: "Die Begriffe des Labors:"}.In(l))
	column := 0
	for _, g := range glossary {
		column = max(column, len([]rune(g.word.In(l))))
	}
	for _, g := range glossary {
		fmt.Fprintln(w, lang.Wrap(fmt.Sprintf("  %-*s ", column, g.word.In(l)), strings.Repeat(" ", column+4), g.text.In(l), width))
	}
}

// helpFor answers `labrun help [COMMAND] [--lang L]`.
func helpFor(def lang.Lang, args []string, stdout, stderr io.Writer) int {
	var words, langArgs []string
	out := &errWriter{lang: def}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "--lang" || a == "-lang") && i+1 < len(args):
			langArgs = append(langArgs, a, args[i+1])
			if l, err := lang.Parse(args[i+1]); err == nil {
				out.lang = l
			}
			i++
		case strings.HasPrefix(a, "--lang") || strings.HasPrefix(a, "-lang"):
			langArgs = append(langArgs, a)
			if l, err := lang.Parse(a[strings.Index(a, "=")+1:]); strings.Contains(a, "=") && err == nil {
				out.lang = l
			}
		default:
			words = append(words, a)
		}
	}
	if len(words) > 0 && words[0] == "help" {
		// Help on help: what it does, and the commands it knows.
		l := langOf(out)
		fmt.Fprintln(stdout, lang.Text{EN: "usage: labrun help [COMMAND] [--lang en|de]", DE: "Aufruf: labrun help [BEFEHL] [--lang en|de]"}.In(l))
		fmt.Fprintln(stdout)
		fmt.Fprintln(stdout, lang.Wrap("", "", lang.Textf(lang.Text{
			EN: "What a command does and each of its flags (the same as labrun COMMAND -h); without a COMMAND, every command, the exit codes and the lab's words. COMMAND is one of: %s. Exit 0; 2 for a COMMAND that is none of them.",
			DE: "Was ein Befehl tut und jeder seiner Schalter (dasselbe wie labrun BEFEHL -h); ohne BEFEHL jeder Befehl, die Exit-Codes und die Begriffe des Labors. BEFEHL ist einer von: %s. Ende mit 0; mit 2 für einen BEFEHL, der keiner davon ist.",
		}, commandNames()+", help").In(l), width))
		return exitOK
	}
	if len(words) > 0 && !strings.HasPrefix(words[0], "-") {
		if _, ok := findCommand(words[0]); !ok {
			fmt.Fprintln(stderr, lang.Textf(lang.Text{
				EN: "labrun help: unknown command %q (valid: %s)",
				DE: "labrun help: unbekannter Befehl %q (gültig: %s)",
			}, words[0], commandNames()+", help").In(langOf(out)))
			return exitUsage
		}
	}
	return runWith(def, append(append(words, langArgs...), "-h"), stdout, stderr)
}
