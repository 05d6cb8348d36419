package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"outboxlab/lang"
	"outboxlab/scenarios"
)

// runClaims is `labrun claims`: the chapters' checkable claims, each with
// the run that proves it; --check plays every run and says which still
// prints what its claim says.
func runClaims(args []string, stdout io.Writer) error {
	fs := newFlags("claims", "", lang.Text{
		EN: "Every checkable claim of the four course chapters, with the labrun command that proves it (or shows where the chapter is wrong); --check runs them all.",
		DE: "Jede prüfbare Aussage der vier Kurskapitel mit dem labrun-Befehl, der sie beweist (oder zeigt, wo das Kapitel irrt); --check führt alle aus.",
	}, stdout)
	chapter := fs.text("chapter", "C", lang.Textf(lang.Text{
		EN: "only the claims of chapter C: %s",
		DE: "nur die Aussagen von Kapitel C: %s",
	}, strings.Join(scenarios.Chapters, ", ")))
	file := fs.text("file", "F", lang.Text{
		EN: "a claims file of your own instead of the chapters' (the format: go doc outboxlab/scenarios Claim)",
		DE: "eine eigene Datei mit Aussagen statt der der Kapitel (das Format: go doc outboxlab/scenarios Claim)",
	})
	check := fs.boolean("check", lang.Text{
		EN: "run every claim's command and say whether it still prints what the claim says (exit 1 if one does not)",
		DE: "den Befehl jeder Aussage ausführen und sagen, ob er noch druckt, was die Aussage sagt (Ende mit 1, wenn nicht)",
	})
	format := fs.formatFlag("text", "markdown", "json")
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	cs, err := loadClaims(*file)
	if err != nil {
		return err
	}
	if *chapter != "" {
		if !slices.Contains(scenarios.Chapters, *chapter) {
			return usagef(lang.Text{EN: "--chapter %q is not a chapter (valid: %s)", DE: "--chapter %q ist kein Kapitel (gültig: %s)"}, *chapter, strings.Join(scenarios.Chapters, ", "))
		}
		cs = slices.DeleteFunc(cs, func(c scenarios.Claim) bool { return c.Chapter() != *chapter })
	}
	if *check {
		return checkClaims(stdout, cs)
	}
	switch format.value {
	case "markdown":
		writeClaimsMarkdown(stdout, cs)
	case "json":
		return writeClaimsJSON(stdout, cs)
	default:
		writeClaimsText(stdout, cs)
	}
	return nil
}

// loadClaims returns the chapters' claims, or those of file.
func loadClaims(file string) ([]scenarios.Claim, error) {
	if file == "" {
		return scenarios.Claims(), nil
	}
	text, err := os.ReadFile(file)
	if err != nil {
		return nil, usagef(lang.Text{EN: "--file: %v", DE: "--file: %v"}, err)
	}
	cs, err := scenarios.ParseClaims(file, string(text))
	if err != nil {
		return nil, usageFrom(err)
	}
	return cs, nil
}

// disagreesText marks a claim the lab refutes as the chapter words it.
var disagreesText = lang.Text{EN: "the lab disagrees:", DE: "das Labor widerspricht:"}

// shows is what a claim's run shows, in l: its own words, else the
// outcome it ends with and the lines it must print, quoted by quote.
func shows(c scenarios.Claim, l lang.Lang, quote func(string) string) string {
	s := c.Shows.In(l)
	if s == "" {
		var parts []string
		for _, w := range c.Want {
			if rest, ok := strings.CutPrefix(w.EN, "Outcome: "); ok {
				parts = append(parts, strings.Fields(rest)[0])
				continue
			}
			parts = append(parts, quote(w.In(l)))
		}
		for _, n := range c.Counts {
			parts = append(parts, fmt.Sprintf("%d× %s", n.N, quote(n.Text.In(l))))
		}
		s = strings.Join(parts, "; ")
	}
	if c.Disagrees {
		s = disagreesText.In(l) + " " + s
	}
	return s
}

// quoteIn quotes a line of output in text as l does: "..." in English,
// „...“ in German.
func quoteIn(l lang.Lang) func(string) string {
	if l == lang.German {
		return func(s string) string { return "„" + s + "“" }
	}
	return strconv.Quote
}

// code quotes a line of output in markdown.
func code(s string) string { return "`" + strings.Join(strings.Fields(s), " ") + "`" }

func writeClaimsText(w io.Writer, cs []scenarios.Claim) {
	l := langOf(w)
	for i, c := range cs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s\n", lang.Wrap(c.Where+":", "  ", c.Text.In(l), width))
		fmt.Fprintf(w, "%s\n", command("  ", commandIn(w, c)))
		fmt.Fprintf(w, "%s\n", lang.Wrap("  →", "    ", shows(c, l, quoteIn(l)), width))
	}
	fmt.Fprint(w, lang.Textf(lang.Text{
		EN: "\n%d claims. `labrun claims --check` runs every command above and says whether it still prints what its claim says.\n",
		DE: "\n%d Aussagen. `labrun claims --check --lang de` führt jeden Befehl oben aus und sagt, ob er noch druckt, was seine Aussage sagt.\n",
	}, len(cs)).In(l))
}

// commandOf is a claim's run as this labrun is started.
func commandOf(c scenarios.Claim) string { return programName() + " " + strings.Join(c.Run, " ") }

// commandIn is a claim's run as w's reader types it: with --lang de in
// German, whose output the claim then quotes.
func commandIn(w io.Writer, c scenarios.Claim) string { return withLang(w, commandOf(c)) }

// writeClaimsMarkdown prints the claims as the READMEs' table.
func writeClaimsMarkdown(w io.Writer, cs []scenarios.Claim) {
	l := langOf(w)
	head := lang.Text{EN: "| chapter | claim | run | what the run shows |", DE: "| Kapitel | Aussage | Lauf | was der Lauf zeigt |"}
	fmt.Fprintf(w, "%s\n|---|---|---|---|\n", head.In(l))
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, c := range cs {
		fmt.Fprintf(w, "| %s | %s | `%s` | %s |\n", cell(c.Where), cell(c.Text.In(l)), cell(commandIn(w, c)), cell(shows(c, l, code)))
	}
}

func writeClaimsJSON(w io.Writer, cs []scenarios.Claim) error {
	type jsonClaim struct {
		Where     string   `json:"where"`
		Claim     string   `json:"claim"`
		Run       string   `json:"run"`
		Want      []string `json:"want"`
		Exit      int      `json:"exit"`
		Shows     string   `json:"shows,omitempty"`
		Disagrees bool     `json:"disagrees"`
	}
	l := langOf(w)
	out := []jsonClaim{}
	for _, c := range cs {
		want := []string{}
		for _, t := range c.Want {
			want = append(want, t.In(l))
		}
		out = append(out, jsonClaim{c.Where, c.Text.In(l), commandIn(w, c), want, c.Exit, c.Shows.In(l), c.Disagrees})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// checkClaims plays every claim's run in the output's language and
// prints one line per claim: ✓ when the run exits and prints what the
// claim says in that language, ✗ with what differs otherwise. A run two
// claims share is played once.
func checkClaims(w io.Writer, cs []scenarios.Claim) error {
	l := langOf(w)
	type played struct {
		code   int
		stdout string
		stderr string
	}
	cache := map[string]played{}
	failed := 0
	for _, c := range cs {
		key := strings.Join(c.Run, "\x00")
		p, ok := cache[key]
		if !ok {
			var stdout, stderr bytes.Buffer
			p.code = run(append(slices.Clone(c.Run), "--lang", l.String()), &stdout, &stderr)
			p.stdout, p.stderr = stdout.String(), stderr.String()
			cache[key] = p
		}
		var wrong []string
		if p.code != c.Exit {
			wrong = append(wrong, lang.Textf(lang.Text{EN: "exit %d, the claim wants %d", DE: "Ende mit %d, die Aussage will %d"}, p.code, c.Exit).In(l))
		}
		for _, want := range c.Want {
			if !strings.Contains(p.stdout, want.In(l)) {
				wrong = append(wrong, lang.Textf(lang.Text{EN: "no line says %q", DE: "keine Zeile sagt „%s“"}, want.In(l)).In(l))
			}
		}
		for _, n := range c.Counts {
			if got := strings.Count(p.stdout, n.Text.In(l)); got != n.N {
				wrong = append(wrong, lang.Textf(lang.Text{EN: "%d line(s) say %q, the claim wants %d", DE: "%d Zeile(n) sagen „%s“, die Aussage will %d"}, got, n.Text.In(l), n.N).In(l))
			}
		}
		if len(wrong) == 0 {
			fmt.Fprintf(w, "✓ %-8s %s\n", c.Where, commandIn(w, c))
			continue
		}
		failed++
		fmt.Fprintf(w, "✗ %-8s %s\n", c.Where, commandIn(w, c))
		fmt.Fprintf(w, "%s\n", lang.Wrap("    ", "    ", c.Text.In(l), width))
		for _, s := range wrong {
			fmt.Fprintf(w, "    %s\n", s)
		}
		if p.stderr != "" {
			fmt.Fprintf(w, "    stderr: %s", p.stderr)
		}
	}
	if failed > 0 {
		fmt.Fprint(w, lang.Textf(lang.Text{
			EN: "\n%d of %d claims no longer print what they say: run each command above and read it (the lab or the claim is wrong).\n",
			DE: "\n%d von %d Aussagen drucken nicht mehr, was sie sagen: jeden Befehl oben ausführen und lesen (das Labor oder die Aussage irrt).\n",
		}, failed, len(cs)).In(l))
		return errMismatch
	}
	fmt.Fprint(w, lang.Textf(lang.Text{
		EN: "\nEvery one of the %d claims prints what it says.\n",
		DE: "\nJede der %d Aussagen druckt, was sie sagt.\n",
	}, len(cs)).In(l))
	return nil
}
