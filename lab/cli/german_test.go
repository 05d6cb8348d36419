package cli

import (
	"regexp"
	"strings"
	"testing"

	"outboxlab/lab/lang/langtest"
	"outboxlab/scenarios"
)

// germanRuns are the labrun commands a participant runs in German: every
// command, its formats for people (text, markdown, HTML, metrics), a
// passing and a failing variant, help, and bad input.
func germanRuns() [][]string {
	runs := [][]string{
		{}, {"matrix"}, {"matrix", "--format", "markdown"}, {"matrix", "--format", "html"},
		{"matrix", "--variant", "dual-write", "--variant", "outbox", "--wide"},
		{"grade", "--variant", "outbox"}, {"grade", "--variant", "mark-before-send"}, {"grade", "--variant", "recover-all"},
		{"list"},
		{"scenario", "relay.after-send", "--variant", "dual-write"},
		{"scenario", "after-send-before-sent", "--format", "html"},
		{"scenario", "claim-4711", "--format", "metrics"},
		{"explore", "--variant", "mark-before-send", "--runs", "20"},
		{"explore", "--variant", "outbox", "--runs", "20"},
		{"explore", "--variant", "no-fencing", "--runs", "40", "--format", "html"},
		{"backlog", "--rate", "2", "--outage", "20m", "--relay", "10"},
		{"backlog", "--rate", "5", "--outage", "2m", "--relay", "10", "--simulate"},
		{"backlog", "--rate", "10", "--outage", "1m", "--relay", "5"},
		{"claims"},
		{"help"}, {"--help"},
		{"matrix", "--variant", "nope"}, {"scenario", "nope"}, {"scenario", "reorder", "--seed", "x"},
		{"explore"}, {"backlog", "--rate", "-1", "--outage", "1m", "--relay", "5"}, {"grade", "--colour"},
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
	for _, args := range germanRuns() {
		args := append(args, "--lang", "de")
		_, stdout, stderr := runLabrun(args...)
		found := langtest.English(stderr)
		if strings.Contains(strings.Join(args, " "), "html") {
			found = append(found, langtest.HTML(workbench.ReplaceAllString(stdout, ""))...)
		} else {
			found = append(found, langtest.English(langtest.WithoutTimeline(stdout))...)
			found = append(found, langtest.Numbers(langtest.WithoutTimeline(stdout))...)
		}
		for _, line := range found {
			t.Errorf("labrun %s: English: %s", strings.Join(args, " "), line)
		}
	}
}

// workbench is an HTML page's timeline: its diagram and the final
// state of its tables, which the simulator writes (see langtest.WithoutTimeline).
var workbench = regexp.MustCompile(`(?s)<div class="workbench">.*?</section>`)
