package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// claimsTable returns the rows of a README's claims table (between
// "<!-- table of: labrun claims" and "<!-- end of table -->") as their
// chapter and command cells: what the row claims to be run by.
func claimsTable(t *testing.T, readme string) [][2]string {
	t.Helper()
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- table of: labrun claims")
	table, _, closed := strings.Cut(rest, "<!-- end of table -->")
	if !ok || !closed {
		t.Fatalf("%s: no claims table between its markers", readme)
	}
	var rows [][2]string
	for _, line := range strings.Split(table, "\n")[1:] {
		cells := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) < 4 || strings.HasPrefix(line, "|---") {
			continue
		}
		// The German table's commands carry --lang de: the run it quotes.
		rows = append(rows, [2]string{strings.TrimPrefix(cells[0], "| "), strings.Replace(cells[2], " --lang de`", "`", 1)})
	}
	return rows[1:] // the header
}

// TestBothREADMEsClaimTheSameRuns: README.de.md's claims table has every
// row of README.md's, with the same chapter and the same command (its
// --lang de aside), in the same order; each README's table is what labrun prints
// (TestTheREADMEsShowWhatLabrunPrints), this holds the two to each other.
func TestBothREADMEsClaimTheSameRuns(t *testing.T) {
	en, de := claimsTable(t, "../../README.md"), claimsTable(t, "../../README.de.md")
	if len(en) < 100 {
		t.Fatalf("README.md: %d claims rows; the parse is broken", len(en))
	}
	if diff := cmp.Diff(en, de); diff != "" {
		t.Errorf("the claims tables differ (-README.md +README.de.md):\n%s", diff)
	}
}

// headingPairs are README.md's `##` and `###` headings, each with its
// counterpart in README.de.md, in README.md's order. A heading added to
// either README needs its pair here.
var headingPairs = [][2]string{
	{"## Quick start", "## Schnellstart"},
	{"## Reading the matrix", "## Die Matrix lesen"},
	{"## How a run works", "## Wie ein Lauf abläuft"},
	{"## Three scenarios", "## Drei Szenarien"},
	{"### A run you can look at", "### Ein Lauf zum Anschauen"},
	{"### After send, before SENT (chapter 000 section 6, the critical row)", "### Nach Send, vor SENT (Kapitel 000 Abschnitt 6, die kritische Zeile)"},
	{"### Claim 4711 (chapter 004)", "### Schadenfall 4711 (Kapitel 004)"},
	{"### Reorder (chapter 001)", "### Vertauschte Reihenfolge (Kapitel 001)"},
	{"## The course chapters' claims, and the runs that prove them", "## Die Aussagen der Kapitel und die Läufe, die sie beweisen"},
	{"## Each mistake is the reference with one change", "## Jeder Fehler ist die Referenz mit einer Änderung"},
	{"## Exercises", "## Übungen"},
	{"## Grading", "## Bewerten"},
	{"## The same verdicts on real parts", "## Dieselben Urteile auf echten Teilen"},
	{"### What a run costs, and the scheduled job", "### Was ein Lauf kostet, und der geplante Job"},
	{"### Interrupting a run", "### Einen Lauf unterbrechen"},
	{"## The production stack (chapter 003): PostgreSQL", "## Der Produktions-Stack (Kapitel 003): PostgreSQL"},
	{"### The crash matrix on PostgreSQL", "### Die Crash-Matrix auf PostgreSQL"},
	{"### Kafka, the chapter's broker", "### Kafka, der Broker des Kapitels"},
	{"### Change data capture from the WAL", "### Change Data Capture aus dem WAL"},
	{"## Your own relay under real kills (`labrun-real verify`)", "## Das eigene Relay unter echten Abstürzen (`labrun-real verify`)"},
	{"## Your own consumer under real kills (`labrun-real verify --consumer`)", "## Der eigene Consumer unter echten Abstürzen (`labrun-real verify --consumer`)"},
	{"## Replaying any failure", "## Jeden Befund wiederholen"},
	{"## The test suite", "## Die Testsuite"},
	{"## Layout", "## Aufbau"},
}

// headings returns a README's `##` and `###` headings in order, leaving
// out lines inside code blocks.
func headings(t *testing.T, readme string) []string {
	t.Helper()
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fenced := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced && (strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "### ")) {
			out = append(out, line)
		}
	}
	return out
}

// TestBothREADMEsHaveTheSameSections: README.de.md has a section for each
// of README.md's, at the same level and in the same order, and no other,
// so that a reader of either finds the same things in the same place. The
// pairs are headingPairs.
func TestBothREADMEsHaveTheSameSections(t *testing.T) {
	en, de := headings(t, "../../README.md"), headings(t, "../../README.de.md")
	german := map[string]string{}
	for _, p := range headingPairs {
		german[p[0]] = p[1]
	}
	var want []string
	for _, h := range en {
		g, ok := german[h]
		if !ok {
			t.Errorf("README.md's %q has no German counterpart in headingPairs: add the pair, and the section to README.de.md", h)
			continue
		}
		want = append(want, g)
	}
	if diff := cmp.Diff(want, de); diff != "" {
		t.Errorf("README.de.md's sections are not README.md's (-README.md's, in German +README.de.md's):\n%s", diff)
	}
}
