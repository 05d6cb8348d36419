package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"outboxlab/lang"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

func runList(args []string, stdout io.Writer) error {
	fs := newFlags("list", "", lang.Text{
		EN: "Every variant, crash point, fault and named scenario, one line each.",
		DE: "Jede Variante, jeder Absturzpunkt, jede Störung und jedes benannte Szenario, je eine Zeile.",
	}, stdout)
	format := fs.formatFlag("text", "json")
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	type jsonScenario struct {
		Name    string `json:"name"`
		Summary string `json:"summary"`
	}
	var out struct {
		Variants  []jsonVariant  `json:"variants"`
		Points    []jsonPoint    `json:"points"`
		Scenarios []jsonScenario `json:"scenarios"`
	}
	de := german(stdout)
	out.Variants = listVariants(de)
	for _, p := range scenarios.Points() {
		out.Points = append(out.Points, jsonPoint{ID: p.ID, Kind: string(p.Kind), Description: p.Description.In(langOf(stdout))})
	}
	for _, s := range scenarios.Catalogue() {
		summary, _ := scenarioText(stdout, s)
		out.Scenarios = append(out.Scenarios, jsonScenario{s.Name, summary})
	}
	for _, p := range scenarios.Assumptions() {
		summary := lang.Textf(lang.Text{EN: "%s (an assumption row: a grading at depth course plays it)", DE: "%s (eine Annahmen-Zeile: eine Bewertung mit Tiefe course spielt sie)"}, p.Description)
		out.Scenarios = append(out.Scenarios, jsonScenario{p.ID, summary.In(langOf(stdout))})
	}
	if format.value == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	kinds := make([]string, len(out.Variants))
	column := 8
	for i, v := range out.Variants {
		kinds[i] = in(stdout, variantKind(v))
		column = max(column, len([]rune(kinds[i])))
	}
	for i, v := range out.Variants {
		fmt.Fprintf(stdout, "variant   %-34s %-*s %s\n", v.Name, column, kinds[i], v.Summary)
	}
	for _, p := range out.Points {
		fmt.Fprintf(stdout, "point     %-34s %-*s %s\n", p.ID, column, in(stdout, kindText(sim.PointKind(p.Kind))), p.Description)
	}
	for _, s := range out.Scenarios {
		fmt.Fprintf(stdout, "scenario  %-34s %s\n", s.Name, s.Summary)
	}
	fmt.Fprintf(stdout, "scenario  %-34s %s\n", in(stdout, lang.Text{EN: "POINT[@K]", DE: "PUNKT[@K]"}), in(stdout, lang.Text{EN: "any point above, crashed at its K-th occurrence (default 1)", DE: "jeder Punkt oben, Absturz bei seinem K-ten Vorkommen (Standard 1)"}))
	note := lang.Text{
		EN: "* not a column of the matrix: labrun matrix --variant V grades it; story: a variant of its own story's workload",
		DE: "* keine Spalte der Matrix: labrun matrix --variant V bewertet sie; Geschichte: eine Variante mit der Arbeitslast ihrer eigenen Geschichte",
	}
	if slices.Contains(kinds, in(stdout, declaresCorrect)) {
		note = lang.Join([]lang.Text{note, {
			EN: "declares correct: a course's variant that declares OK everywhere, correct once labrun grade --variant V says OK",
			DE: "erklärt sich korrekt: eine Variante des Kurses, die überall OK erwartet, korrekt erst, wenn labrun grade --variant V OK sagt",
		}}, "; ")
	}
	fmt.Fprintln(stdout, lang.Wrap("", " ", "("+note.In(langOf(stdout))+")", width))
	return nil
}

// variantKind says what a variant is in labrun list: correct, a mistake,
// the same with * when it is not a column of the matrix, a story's; a
// course's variant that declares OK everywhere declares itself correct,
// which only its grading shows.
func variantKind(v jsonVariant) lang.Text {
	kind := lang.Text{EN: "mistake", DE: "Fehler"}
	switch {
	case v.Correct && !scenarios.IsLabVariant(v.Name):
		return declaresCorrect
	case v.Correct:
		kind = lang.Text{EN: "correct", DE: "korrekt"}
	}
	switch v.Beyond {
	case "extra":
		kind = lang.Join([]lang.Text{kind, lang.Plain("*")}, "")
	case "story":
		kind = lang.Text{EN: "story", DE: "Geschichte"}
	}
	return kind
}

// declaresCorrect is a course's variant that declares OK everywhere.
var declaresCorrect = lang.Text{EN: "declares correct", DE: "erklärt sich korrekt"}

// jsonVariant is a variant as labrun list prints it.
type jsonVariant struct {
	Name    string `json:"name"`
	Correct bool   `json:"correct"`
	// Beyond says the variant is not a column of the matrix: "extra"
	// (labrun matrix --variant grades it), "story" (it tells a story
	// of its own, with its own workload).
	Beyond  string `json:"beyond,omitempty"`
	Summary string `json:"summary"`
}

// listVariants lists the matrix's variants, then the extras, then the
// stories' own, with their summaries (German when de).
func listVariants(de bool) []jsonVariant {
	var out []jsonVariant
	add := func(vs []variant.Variant, beyond string) {
		for _, v := range vs {
			l := lang.English
			if de {
				l = lang.German
			}
			out = append(out, jsonVariant{v.Name, v.Correct(), beyond, v.Summary.In(l)})
		}
	}
	add(scenarios.Variants(), "")
	add(scenarios.Extras(), "extra")
	add(scenarios.StoryVariants(), "story")
	return out
}
