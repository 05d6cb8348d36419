package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"outboxlab/examples/courselab/course"
	"outboxlab/internal/longtest"
	"outboxlab/lab/cli"
	"outboxlab/variant"
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
	// It declares OK everywhere: until graded, the list says it declares
	// itself correct, not that it is.
	if _, stdout, _ := run("list"); !strings.Contains(stdout, "variant   eager-relay                        declares correct a learner's relay") {
		t.Fatalf("list does not name eager-relay as a variant that declares itself correct:\n%s", stdout)
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
	// The counterexample says what broke in its first line, where it once
	// said "the smallest counterexample: OK" of an error the relay
	// returned: the error, or (since exploration draws the broker down
	// from the start) the LOST of a batch marked SENT and not sent.
	if first := strings.SplitN(stdout, "\n", 2)[0]; !strings.HasSuffix(first, "the smallest counterexample: OK, but a process returned an error it should have handled itself") &&
		!strings.HasSuffix(first, "the smallest counterexample: LOST") {
		t.Errorf("explore's first line %q does not name the error", first)
	}
	command := strings.TrimSpace(strings.SplitN(stdout[i+len("Replay: "):], "\n", 2)[0])
	if code, again := replay(t, command); code != 1 || again != stdout {
		t.Fatalf("explore's replay %q: exit %d, and another output than the first", command, code)
	}
}

// TestEveryReplayOfAGradeReproducesIt: labrun grade finds the course's
// variant wrong in every stage; each finding's replay command, printed
// for this labrun, fails again (exit 1), and a scenario's shows the
// finding's outcome.
func TestEveryReplayOfAGradeReproducesIt(t *testing.T) {
	longtest.Only(t, "long_verdict", "TestACourseLabrunGradesItsOwnVariant, its matrix's and exploration's replays")
	code, stdout, _ := run("grade", "--variant", "eager-relay", "--format", "json")
	if code != 1 {
		t.Fatalf("grade: exit %d, want 1", code)
	}
	var v struct {
		Findings []struct{ Stage, Cause, Outcome, Replay string }
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatal(err)
	}
	stages := map[string]bool{}
	replayed := map[string]bool{}
	for _, f := range v.Findings {
		stages[f.Stage] = true
		if replayed[f.Replay] || len(replayed) == 12 {
			continue
		}
		replayed[f.Replay] = true
		code, out := replay(t, f.Replay)
		if code != 1 || f.Stage != "exploration" && f.Cause == "outcome" && !strings.Contains(out, "Outcome: "+f.Outcome+" (expected OK)") {
			t.Errorf("%s %s: replay %q: exit %d, want 1 with %s:\n%s", f.Stage, f.Cause, f.Replay, code, f.Outcome, out)
		}
	}
	for _, s := range []string{"matrix", "sweep", "failure sweep", "exploration"} {
		if !stages[s] {
			t.Errorf("no finding of the %s", s)
		}
	}
}
