package cli

import (
	"strings"
	"testing"

	"outboxlab/lab/verdict"
	"outboxlab/sim"
	"outboxlab/variant"
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

// TestAOneRelayVariantSaysNoRunHadTwoRelays: a variant that supports one
// relay (MaxRelays 1) is never run with two, so nothing tested its
// claims, leases and recovery against another relay's; its grade line
// passed as "OK" all the same. Now the line says so, in both languages,
// for a correct variant and a mistake alike; a variant graded with two
// relays says nothing of it.
func TestAOneRelayVariantSaysNoRunHadTwoRelays(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"grade", "--variant", "cdc", "--depth", "quick"},
			"cdc: graded 45 runs at depth quick (matrix 45): OK; no run had two relays: the variant supports one (MaxRelays 1)"},
		{[]string{"grade", "--variant", "cdc", "--depth", "quick", "--lang", "de"},
			"cdc: 45 Läufe bewertet, Tiefe quick (Matrix 45): OK; kein Lauf hatte zwei Relays: die Variante unterstützt eines (MaxRelays 1)"},
		{[]string{"grade", "--variant", "offset-by-id", "--depth", "quick"},
			"fails as declared: STUCK at 1 point (chapter 003 (polling), watermill issue 311); no run had two relays: the variant supports one (MaxRelays 1)"},
	}
	for _, c := range cases {
		code, out, stderr := runLabrun(c.args...)
		if code != 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), c.want) {
			t.Errorf("labrun %s: exit %d, want 0 with %q:\n%s%s", strings.Join(c.args, " "), code, c.want, out, stderr)
		}
	}
	if _, out, _ := runLabrun("grade", "--variant", "dual-write", "--depth", "quick"); strings.Contains(out, "two relays") {
		t.Errorf("labrun grade --variant dual-write, graded with two relays, says:\n%s", out)
	}
}

// TestAFailingOneRelayGradeSaysNoRunHadTwoRelays: a grade with findings
// says it under its header too: a learner fixing a one-relay variant
// should know what no run tried.
func TestAFailingOneRelayGradeSaysNoRunHadTwoRelays(t *testing.T) {
	v := variant.Outbox()
	v.Name, v.MaxRelays = "one-relay", 1
	vd := verdict.Verdict{Variant: v.Name, Depth: verdict.Quick, MaxRelays: 1,
		Cells:    []sim.Cell{{Variant: v.Name, Relays: 1}},
		Stages:   []verdict.StageResult{{Stage: verdict.StageMatrix, Runs: 1, Failed: 1}},
		Findings: []verdict.Finding{{Stage: verdict.StageMatrix, Outcome: variant.Lost, Expected: variant.OK, Point: "service.after-commit", Run: sim.RunID{Variant: v.Name}}}}
	var out strings.Builder
	writeGrade(&out, vd, v)
	if want := "one-relay: 1 cause(s) in 1 runs at depth quick (matrix 1):\n  no run had two relays: the variant supports one (MaxRelays 1)\n"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("got\n%s\nwant it to begin with\n%s", out.String(), want)
	}
}
