package cli

import (
	"regexp"
	"strings"
	"testing"

	"outboxlab/internal/longtest"
	"outboxlab/lang/langtest"
	"outboxlab/scenarios"
)

// germanRuns are the labrun commands a participant runs in German: every
// command, its formats for people (text, markdown, HTML, metrics), a
// passing and a failing variant, help, and bad input; with all, every
// command's help and every story too (the long form's).
func germanRuns(all bool) [][]string {
	runs := [][]string{
		{}, {"matrix"}, {"matrix", "--format", "markdown"}, {"matrix", "--format", "html"},
		{"matrix", "--variant", "dual-write", "--variant", "outbox", "--wide"},
		{"grade", "--variant", "outbox"}, {"grade", "--variant", "mark-before-send"}, {"grade", "--variant", "recover-all"},
		{"list"},
		{"scenario", "relay.after-send", "--variant", "dual-write"},
		{"scenario", "after-send-before-sent", "--format", "html"},
		{"scenario", "stall", "--format", "mermaid"}, {"scenario", "outage-20m", "--format", "mermaid"},
		{"scenario", "claim-4711", "--format", "metrics"},
		{"explore", "--variant", "mark-before-send", "--runs", "20"},
		{"explore", "--variant", "outbox", "--runs", "20"},
		{"explore", "--variant", "no-fencing", "--runs", "40", "--format", "html"},
		{"backlog", "--rate", "2", "--outage", "20m", "--relay", "10"},
		{"backlog", "--rate", "5", "--outage", "2m", "--relay", "10", "--simulate"},
		{"backlog", "--rate", "10", "--outage", "1m", "--relay", "5"},
		{"claims"},
		{"help"}, {"--help"}, {"help", "help"},
		{"matrix", "--variant", "nope"}, {"scenario", "nope"}, {"scenario", "reorder", "--seed", "x"},
		{"explore"}, {"backlog", "--rate", "-1", "--outage", "1m", "--relay", "5"}, {"grade", "--colour"},
	}
	if !all {
		return runs
	}
	for _, c := range commands() {
		runs = append(runs, []string{"help", c.name})
	}
	for _, s := range scenarios.Catalogue() {
		runs = append(runs, []string{"scenario", s.Name})
	}
	return runs
}

// TestGermanOutputHasNoEnglish runs every command in germanRuns with
// --lang de and fails on a line with English prose (langtest.English:
// ids, outcome words, commands and backticks left out) or, in text, a
// number or duration written as Go writes it (600000, 33m20s).
func TestGermanOutputHasNoEnglish(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every labrun command")
	}
	long := longtest.Long(t, "long_cli")
	for _, args := range germanRuns(long) {
		if !long && gradesAtCourse(args) {
			continue // the long form's: what grades a correct variant at depth course
		}
		args := append(args, "--lang", "de")
		_, stdout, stderr := runLabrun(args...)
		found := langtest.English(stderr)
		if strings.Contains(strings.Join(args, " "), "html") {
			found = append(found, langtest.HTML(stdout)...)
		} else {
			found = append(found, langtest.English(langtest.WithoutSchedule(stdout))...)
			found = append(found, langtest.Numbers(langtest.WithoutSchedule(stdout))...)
		}
		for _, line := range found {
			t.Errorf("labrun %s: English: %s", strings.Join(args, " "), line)
		}
	}
}

// TestOneNumberFormatInGerman: under --lang de money has a decimal comma
// and counts of four digits and more group their thousands, in the
// verdicts, the counts of runs and the timelines alike (langtest.Numbers
// finds only what Go writes, five digits and more).
func TestOneNumberFormatInGerman(t *testing.T) {
	ungrouped := regexp.MustCompile(`(Sweep|Exploration|Matrix|\() \d{4,}\b|\b\d{4,} (Läufe|Abläufe)`)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"scenario", "reorder", "--variant", "unordered-consumer"}, "das Konto zeigt 20,09 EUR berechnet, die committete Bestellung beträgt 40,08 EUR"},
		{[]string{"scenario", "reorder"}, "orders: o-1 v3 ACCEPTED 40,08 EUR"},
		{[]string{"grade", "--variant", "outbox"}, "Exploration 8.000"},
		{nil, "Läufe, Seed 1)"},
	}
	long := longtest.Long(t, "long_cli")
	for _, c := range cases {
		args := append(c.args, "--lang", "de")
		if !long && gradesAtCourse(args) {
			continue // the long form's: the summary, a correct variant's grade
		}
		_, out, _ := runLabrun(args...)
		if !strings.Contains(out, c.want) {
			t.Errorf("labrun %s: no %q:\n%s", strings.Join(args, " "), c.want, out)
		}
		for _, m := range ungrouped.FindAllString(out, -1) {
			t.Errorf("labrun %s: %q, its thousands not grouped", strings.Join(args, " "), m)
		}
		for _, line := range langtest.Numbers(out) {
			t.Errorf("labrun %s: %s", strings.Join(args, " "), line)
		}
	}
}
