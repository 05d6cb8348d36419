package cli

import (
	"os"
	"strings"
	"testing"

	"outboxlab/scenarios"
)

// TestTheREADMEsStoryPlays: each README's story of your own names its
// summary line, parses and plays as the README says (it once named every
// line but the summary, which a story cannot do without).
func TestTheREADMEsStoryPlays(t *testing.T) {
	for readme, after := range map[string]string{"../../README.md": "A story of your own", "../../README.de.md": "Eine\neigene, `meine-geschichte.txt`"} {
		data, err := os.ReadFile(readme)
		if err != nil {
			t.Fatal(err)
		}
		_, rest, ok := strings.Cut(string(data), after)
		_, block, ok2 := strings.Cut(rest, "```text\n")
		story, _, ok3 := strings.Cut(block, "```")
		if !ok || !ok2 || !ok3 || !strings.Contains(story, "\nsummary ") {
			t.Fatalf("%s: no story with a summary line after %q", readme, after)
		}
		f, err := scenarios.ParseFile("story.txt", story)
		if err != nil {
			t.Fatalf("%s: %v", readme, err)
		}
		if code, out, _ := runLabrun("scenario", "--file", writeTemp(t, story)); code != 0 || !strings.Contains(out, f.Summary.EN) {
			t.Errorf("%s: its story plays with exit %d:\n%s", readme, code, out)
		}
	}
}

// TestAStoryHasOneOfEach: a second summary (or variant, seed, ...) line
// would silently replace the first: it is refused with its line.
func TestAStoryHasOneOfEach(t *testing.T) {
	for _, text := range []string{
		"summary one\nsummary two\nworkload one-order\n",
		"summary s\nworkload one-order\nseed 1\nseed 2\n",
	} {
		_, err := scenarios.ParseFile("f.txt", text)
		if err == nil || !strings.Contains(err.Error(), "line (the first is line") {
			t.Errorf("%q: %v, want the second line refused", text, err)
		}
	}
}

// TestAStoryWithOtherRelaysLeavesOutItsNarration: the stall story tells
// of relay-2; played with --relays 1 it says so instead of narrating a
// relay that never runs.
func TestAStoryWithOtherRelaysLeavesOutItsNarration(t *testing.T) {
	_, out, _ := runLabrun("scenario", "stall", "--relays", "1")
	if strings.Contains(out, "relay-2 sends everything") || !strings.Contains(strings.Join(strings.Fields(out), " "), "This run: 1 relay (--relays), where the story tells its run with 2; its narration is left out") {
		t.Errorf("scenario stall --relays 1 narrates the story's two relays:\n%s", out[:min(len(out), 2000)])
	}
	if _, out, _ = runLabrun("scenario", "stall"); !strings.Contains(out, "relay-2 sends everything") {
		t.Errorf("scenario stall lost its narration")
	}
}

// writeTemp writes text into a file of the test's and returns its path.
func writeTemp(t *testing.T, text string) string {
	t.Helper()
	file := t.TempDir() + "/story.txt"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}
