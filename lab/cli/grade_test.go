package cli

import (
	"strings"
	"testing"
)

// TestAMistakeSaysItFailsAsDeclared: a mistake whose every cell is as it
// declares exits 0, and its line says how it fails, never OK; a variant
// whose every run is OK says OK.
func TestAMistakeSaysItFailsAsDeclared(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"grade", "--variant", "dual-write", "--depth", "quick"},
			`dual-write: graded 43 runs at depth quick (matrix 43): fails as declared: LOST at 6 points (chapter
  000 section 2, 003 "Das Dual-Write-Problem")`},
		{[]string{"grade", "--variant", "publish-first", "--depth", "quick", "--lang", "de"},
			"scheitert wie erwartet: PHANTOM an 3\n  Punkten, MISMATCH an 1 Punkt (Kapitel 004 „Ohne Outbox hilft"},
		{[]string{"grade", "--variant", "outbox", "--depth", "quick"}, "outbox: graded 131 runs at depth quick (matrix 131): OK\n"},
	}
	for _, c := range cases {
		code, out, stderr := runLabrun(c.args...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("labrun %s: exit %d, want 0 with %q:\n%s%s", strings.Join(c.args, " "), code, c.want, out, stderr)
		}
		if c.args[2] != "outbox" && strings.Contains(out, ": OK") {
			t.Errorf("labrun %s says OK for a mistake:\n%s", strings.Join(c.args, " "), out)
		}
	}
}

// TestTheHelpSaysWhatTheExitCodeMeans: the exit code of a mistake that
// fails as declared is 0, and the help says so.
func TestTheHelpSaysWhatTheExitCodeMeans(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"help", "grade"}} {
		_, out, _ := runLabrun(args...)
		if !strings.Contains(strings.Join(strings.Fields(out), " "), `"fails as declared"`) {
			t.Errorf("labrun %s does not say a mistake that fails as declared exits 0:\n%s", strings.Join(args, " "), out)
		}
	}
}
