package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"outboxlab/examples/courselab/course"
	"outboxlab/lab/cli"
	"outboxlab/lab/variant"
)

var lab = cli.Lab{Command: "go run ./examples/courselab", Variants: []variant.Variant{course.EagerRelay()}}

func run(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := lab.Run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// replay runs a printed replay command of this labrun.
func replay(t *testing.T, command string) (int, string) {
	t.Helper()
	args, ok := strings.CutPrefix(command, lab.Command+" ")
	if !ok {
		t.Fatalf("replay %q does not start with %q", command, lab.Command)
	}
	code, stdout, stderr := run(strings.Fields(args)...)
	if stderr != "" {
		t.Fatalf("%s: stderr %q", command, stderr)
	}
	return code, stdout
}

// TestACourseLabrunGradesItsOwnVariant: the course's labrun lists the
// learner's variant, grades it in the matrix (it claims to be correct and
// is not), explores it, and every replay command it prints reproduces what
// it reported.
func TestACourseLabrunGradesItsOwnVariant(t *testing.T) {
	if _, stdout, _ := run("list"); !strings.Contains(stdout, "eager-relay") {
		t.Fatalf("list does not name eager-relay:\n%s", stdout)
	}

	code, stdout, _ := run("matrix", "--variant", "eager-relay", "--format", "json")
	if code != 1 {
		t.Fatalf("matrix: exit %d, want 1 (the variant claims OK everywhere and is not)", code)
	}
	var m struct {
		Cells []struct {
			Point, Outcome string
			Counterexample *struct{ Replay string }
		}
	}
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, c := range m.Cells {
		if c.Counterexample == nil {
			continue
		}
		failed++
		code, out := replay(t, c.Counterexample.Replay)
		if code != 1 || !strings.Contains(out, "Outcome: "+c.Outcome+" (expected OK)") {
			t.Errorf("%s: replay %q: exit %d, want the cell's %s:\n%s", c.Point, c.Counterexample.Replay, code, c.Outcome, out)
		}
	}
	if failed == 0 {
		t.Fatal("the matrix found nothing wrong with eager-relay")
	}

	code, stdout, _ = run("explore", "--variant", "eager-relay", "--runs", "200")
	i := strings.Index(stdout, "Replay: ")
	if code != 1 || i < 0 {
		t.Fatalf("explore: exit %d, want a counterexample with its replay:\n%s", code, stdout)
	}
	command := strings.TrimSpace(strings.SplitN(stdout[i+len("Replay: "):], "\n", 2)[0])
	if code, again := replay(t, command); code != 1 || again != stdout {
		t.Fatalf("explore's replay %q: exit %d, and another output than the first", command, code)
	}
}

// TestSweepFailuresReplay: the double-crash sweep of a variant that claims
// to be correct lists its failures one line each, and each printed replay
// command reproduces its outcome.
func TestSweepFailuresReplay(t *testing.T) {
	code, stdout, _ := run("matrix", "--variant", "eager-relay")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	_, sweep, ok := strings.Cut(stdout, "Beyond the rows")
	if !ok {
		t.Fatalf("no sweep:\n%s", stdout)
	}
	// Join the replay commands' continued lines.
	sweep = strings.ReplaceAll(sweep, " \\\n", " ")
	var replays []string
	for _, l := range strings.Split(sweep, "\n") {
		if cmd, ok := strings.CutPrefix(strings.TrimSpace(l), "replay: "); ok {
			replays = append(replays, strings.Join(strings.Fields(cmd), " "))
		}
	}
	if len(replays) == 0 || len(replays) > 10 {
		t.Fatalf("%d replay commands, want 1 to 10:\n%s", len(replays), sweep)
	}
	for _, r := range replays {
		if code, out := replay(t, r); code != 1 || !strings.Contains(out, "Outcome: LOST (expected OK)") {
			t.Errorf("%s: exit %d:\n%s", r, code, out)
		}
	}
}
