package outboxlab_test

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	goldenfile "outboxlab/internal/golden"
)

// A timing a README promises a reader (how long the quick start's
// commands take, the test suite, the real matrix, the backlog
// simulation) is a figure BENCHMARKS.md measured, with its machine. The
// README writes it between markers, <!--t:ID-->4.1 s<!--/t-->, and the
// test holds it to the row of BENCHMARKS.md's table "What the READMEs
// promise" with that id; -update writes the READMEs' figures anew from
// the table. In German a figure has a decimal comma and a thousands
// point (27,5 s; 1.209 s).
const timingsHeading = "## What the READMEs promise"

var timingMark = regexp.MustCompile(`<!--t:([a-z0-9-]+)-->(.*?)<!--/t-->`)

// TestTheREADMEsTimingsAreMeasured: every timing marker in the READMEs
// names a row of BENCHMARKS.md's table and says its figure; every row is
// quoted by both READMEs; and the phrases that promised a time without a
// measurement are gone.
func TestTheREADMEsTimingsAreMeasured(t *testing.T) {
	bench, err := os.ReadFile("BENCHMARKS.md")
	if err != nil {
		t.Fatal(err)
	}
	figures, err := promisedFigures(string(bench))
	if err != nil {
		t.Fatal(err)
	}
	for _, readme := range []struct {
		file   string
		german bool
	}{{"README.md", false}, {"README.de.md", true}} {
		text, err := os.ReadFile(readme.file)
		if err != nil {
			t.Fatal(err)
		}
		got, problems := timingProblems(string(text), figures, readme.german)
		if goldenfile.Update() {
			if err := os.WriteFile(readme.file, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		for _, p := range problems {
			t.Errorf("%s: %s (go test . -run TestTheREADMEsTimingsAreMeasured -update writes the figures from BENCHMARKS.md)", readme.file, p)
		}
	}
}

// TestTimingProblemsAreFound: a README whose figure differs from the
// table, that names an id the table does not have, or that leaves a row
// out, is caught.
func TestTimingProblemsAreFound(t *testing.T) {
	figures := map[string]string{"test-warm": "9.5 s", "labrun-cold": "40 s"}
	for _, c := range []struct{ text, want string }{
		{"takes <!--t:test-warm-->9.5 s<!--/t--> and <!--t:labrun-cold-->40 s<!--/t-->", ""},
		{"takes <!--t:test-warm-->about ten seconds<!--/t--> and <!--t:labrun-cold-->40 s<!--/t-->", `test-warm says "about ten seconds", BENCHMARKS.md measured 9.5 s`},
		{"takes <!--t:test-cold-->9.5 s<!--/t--> and <!--t:labrun-cold-->40 s<!--/t-->", "test-cold is no row"},
		{"takes <!--t:labrun-cold-->40 s<!--/t-->", "quotes no timing test-warm"},
	} {
		_, problems := timingProblems(c.text, figures, false)
		if c.want == "" && len(problems) > 0 || c.want != "" && !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, c.want) }) {
			t.Errorf("%q: problems %q, want one saying %q", c.text, problems, c.want)
		}
	}
	figures["labrun-cold"] = "1,209 s"
	if got, _ := timingProblems("<!--t:test-warm-->9.5 s<!--/t--> <!--t:labrun-cold-->40 s<!--/t-->", figures, true); !strings.Contains(got, "9,5 s") || !strings.Contains(got, "1.209 s") {
		t.Errorf("German figures: %q, want 9,5 s and 1.209 s", got)
	}
}

// promisedFigures reads the table under timingsHeading: its first column
// is an id in backquotes, its second the figure.
func promisedFigures(bench string) (map[string]string, error) {
	_, section, ok := strings.Cut(bench, "\n"+timingsHeading+"\n")
	if !ok {
		return nil, fmt.Errorf("BENCHMARKS.md has no section %q", timingsHeading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	figures := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\| ([^|]+?) \\|").FindAllStringSubmatch(section, -1) {
		figures[m[1]] = m[2]
	}
	if len(figures) == 0 {
		return nil, fmt.Errorf("BENCHMARKS.md's %q has no rows", timingsHeading)
	}
	return figures, nil
}

// timingProblems returns text with every marked figure written from
// figures, and what is wrong with it as it is.
func timingProblems(text string, figures map[string]string, german bool) (string, []string) {
	var problems []string
	quoted := map[string]bool{}
	out := timingMark.ReplaceAllStringFunc(text, func(m string) string {
		sub := timingMark.FindStringSubmatch(m)
		id, said := sub[1], sub[2]
		figure, ok := figures[id]
		if !ok {
			problems = append(problems, fmt.Sprintf("timing %s is no row of BENCHMARKS.md's %q", id, timingsHeading))
			return m
		}
		quoted[id] = true
		if german {
			figure = germanFigure(figure)
		}
		if said != figure {
			problems = append(problems, fmt.Sprintf("timing %s says %q, BENCHMARKS.md measured %s", id, said, figure))
		}
		return "<!--t:" + id + "-->" + figure + "<!--/t-->"
	})
	for id := range figures {
		if !quoted[id] {
			problems = append(problems, fmt.Sprintf("quotes no timing %s of BENCHMARKS.md", id))
		}
	}
	slices.Sort(problems)
	return out, problems
}

// germanFigure writes an English figure the German way: the decimal
// point a comma, the thousands comma a point.
func germanFigure(figure string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '.':
			return ','
		case ',':
			return '.'
		}
		return r
	}, figure)
}
