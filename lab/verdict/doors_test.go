package verdict_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"outboxlab/examples/courselab/course"
	"outboxlab/exercises/dedup"
	"outboxlab/exercises/ordering"
	"outboxlab/exercises/recovery"
	"outboxlab/exercises/sendfirst"
	"outboxlab/internal/longtest"
	"outboxlab/internal/mutation"
	"outboxlab/lab/cli"
	"outboxlab/lab/grade"
	"outboxlab/lab/verdict"
	"outboxlab/scenarios"
	"outboxlab/variant"
	"outboxlab/variant/varianttest"
)

// TestOneVerdictThroughEveryDoor grades variants through every door the
// lab has, and each door must say what the grader says: the same pass or
// fail, and (where the door writes them) the same findings, stage, cause
// and outcome. The doors: a course's labrun (cli.Lab, as examples/courselab
// builds it) with matrix and grade, grade.Variant in a test (the
// exercises' door too), and the mutation analysis; labrun itself is a
// cli.Lab without extra variants. At depth quick: the reference, a
// mistake, an exercise's starter, the course's eager-relay (an outcome and
// an unhandled error), and broken frames for the other causes; at depth
// course the relay that logs a failed
// commit and goes on, which a course's labrun passed at exit 0 while
// grade.Variant and labrun explore failed it. That is the long form
// (.ci/run's long_verdict); go test ./... grades one of each kind at
// depth quick: a mistake (a red cell and its replays) and a frame that
// panics (an unhandled error); a pass through every door is the long
// form's (and TestAPassingGradeSaysSoUnderV's, in lab/grade). The scheduled
// job's form (longtest.Full): every shipped variant, every exercise,
// every broken frame, at both depths (over ten minutes).
func TestOneVerdictThroughEveryDoor(t *testing.T) {
	if testing.Short() {
		t.Skip("grades variants through five doors")
	}
	long := longtest.Long(t, "long_verdict")
	var variants []variant.Variant
	slips := []string{"relay-panics-on-a-rejection"}
	if long {
		variants = append(variants, variant.Outbox(), recovery.Variant(), course.EagerRelay())
		slips = []string{"relay-swallows-commit-errors", "relay-swallows-its-crash", "relay-panics-on-a-rejection", "relay-cannot-be-built", "relay-pauses-only-in-next-wake"}
	}
	for _, name := range []string{"dual-write"} {
		v, err := scenarios.FindVariant(name)
		if err != nil {
			t.Fatal(err)
		}
		variants = append(variants, v)
	}
	full := longtest.Full()
	if full {
		variants = append(scenarios.Variants()[1:], variant.Outbox(), recovery.Variant(), sendfirst.Variant(), dedup.Variant(), ordering.Variant(), course.EagerRelay())
		slips = nil
		for _, s := range varianttest.Slips() {
			slips = append(slips, s.Frame+"-"+s.Name)
		}
	}
	for _, name := range slips {
		s, err := varianttest.Find(name)
		if err != nil {
			t.Fatal(err)
		}
		variants = append(variants, s.Variant(1))
	}
	for _, v := range variants {
		depths := []verdict.Depth{verdict.Quick}
		if full || long && v.Name == "relay-swallows-commit-errors" {
			depths = append(depths, verdict.Course)
		}
		for _, d := range depths {
			t.Run(v.Name+"/"+d.String(), func(t *testing.T) { throughEveryDoor(t, v, d) })
		}
	}
}

// throughEveryDoor grades v at depth d through each door and compares.
func throughEveryDoor(t *testing.T, v variant.Variant, d verdict.Depth) {
	want, err := verdict.Grade(v, verdict.Options{Depth: d})
	if err != nil {
		t.Fatal(err)
	}
	wantFindings := findingKeys(want)
	lab := cli.Lab{Command: "go run ./examples/courselab", Variants: []variant.Variant{v}}
	if _, err := scenarios.FindVariant(v.Name); err == nil {
		lab.Variants = nil // a shipped variant: labrun's own
	}
	for _, command := range []string{"matrix", "grade"} {
		var stdout, stderr bytes.Buffer
		code := lab.Run([]string{command, "--variant", v.Name, "--depth", d.String(), "--format", "json"}, &stdout, &stderr)
		if code != exitCode(want) {
			t.Errorf("labrun %s: exit %d, the grader says %d (passed %v); stderr %q", command, code, exitCode(want), want.Passed(), stderr.String())
		}
		var got struct {
			Verdicts []jsonVerdict `json:"verdicts"`
			jsonVerdict
		}
		if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
			t.Fatalf("labrun %s: %v", command, err)
		}
		jv := got.jsonVerdict
		if command == "matrix" && len(got.Verdicts) == 1 {
			jv = got.Verdicts[0]
		}
		if keys := jv.keys(); !slices.Equal(keys, wantFindings) {
			t.Errorf("labrun %s: findings\n%s\nthe grader's:\n%s", command, strings.Join(keys, "\n"), strings.Join(wantFindings, "\n"))
		}
	}
	replayEveryGroup(t, lab, v, want)
	r := &recorder{TB: t}
	setFlag(t, "lab.depth", d.String())
	grade.Grade(r, v, grade.Options{})
	if len(r.errors) != len(want.Groups()) || want.Passed() != (len(r.logs) == 1) {
		t.Errorf("grade.Variant: %d findings and log %q, the grader's %d groups (passed %v)", len(r.errors), r.logs, len(want.Groups()), want.Passed())
	}
	depth := mutation.Matrix
	if d != verdict.Quick {
		depth = mutation.Full
	}
	if res := mutation.GradeVariant(v, depth); res.Killed() == want.Passed() {
		t.Errorf("the mutation grader: killed %v (%v), the grader passed %v", res.Killed(), res.Failed, want.Passed())
	}
}

// replayEveryGroup plays the first run of each of want's groups through
// the doors' replay commands: the course labrun's (scenario, explore) and
// grade's (-lab.replay, -lab.relays, -lab.poll). Each must fail again.
func replayEveryGroup(t *testing.T, lab cli.Lab, v variant.Variant, want verdict.Verdict) {
	for _, g := range want.Groups() {
		run := g.First().Run
		command := run.Command(lab.Command)
		var stdout, stderr bytes.Buffer
		if code := lab.Run(strings.Fields(strings.TrimPrefix(command, lab.Command+" ")), &stdout, &stderr); code != 1 {
			t.Errorf("%s: exit %d, want 1 (it failed the grading); stderr %q", command, code, stderr.String())
		}
		if err := grade.Replay(quiet{t}, v, run); err == nil {
			t.Errorf("go test ... %s: the run passes, but it failed the grading", run.TestFlags())
		}
	}
}

// quiet is a test whose log is dropped: a replay logs a whole timeline.
type quiet struct{ *testing.T }

func (quiet) Log(...any) {}

// exitCode is what labrun exits with for a verdict.
func exitCode(v verdict.Verdict) int {
	if v.Passed() {
		return 0
	}
	return 1
}

// findingKeys are v's findings as "stage cause outcome", sorted.
func findingKeys(v verdict.Verdict) []string {
	var out []string
	for _, f := range v.Findings {
		out = append(out, fmt.Sprintf("%s %s %s", f.Stage, f.Cause, f.Outcome))
	}
	slices.Sort(out)
	return out
}

// jsonVerdict is a verdict as labrun's JSON writes it.
type jsonVerdict struct {
	Findings []struct{ Stage, Cause, Outcome string }
}

func (v jsonVerdict) keys() []string {
	var out []string
	for _, f := range v.Findings {
		out = append(out, fmt.Sprintf("%s %s %s", f.Stage, f.Cause, f.Outcome))
	}
	slices.Sort(out)
	return out
}

// recorder is a test that keeps what grade.Grade reports instead of
// failing.
type recorder struct {
	testing.TB
	errors, logs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Log(args ...any) { r.logs = append(r.logs, fmt.Sprint(args...)) }
func (r *recorder) Name() string    { return "TestDoors" }

// setFlag sets a flag for the rest of the test.
func setFlag(t *testing.T, name, value string) {
	old := flag.Lookup(name).Value.String()
	if err := flag.Set(name, value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flag.Set(name, old) })
}

// TestAPolledFindingReplaysThroughEveryDoor: a run of the polled matrix
// replays with --poll through a course's labrun and with -lab.poll
// through grade, and fails again (a relay that keeps its pause only in
// NextWake hammers the broker when polled); without the poll it passes.
func TestAPolledFindingReplaysThroughEveryDoor(t *testing.T) {
	s, err := varianttest.Find("relay-pauses-only-in-next-wake")
	if err != nil {
		t.Fatal(err)
	}
	v := s.Variant(1)
	p, err := scenarios.FindPoint("outage-backlog")
	if err != nil {
		t.Fatal(err)
	}
	c, err := scenarios.Matrix().Polled().RunCell(v, p)
	if err != nil || c.Counterexample == nil || !c.Counterexample.Poll {
		t.Fatalf("the polled cell: %v, %+v", err, c.Counterexample)
	}
	run := *c.Counterexample
	lab := cli.Lab{Command: "go run ./examples/courselab", Variants: []variant.Variant{v}}
	for _, poll := range []bool{true, false} {
		run.Poll = poll
		command := run.Command(lab.Command)
		var stdout, stderr bytes.Buffer
		code := lab.Run(strings.Fields(strings.TrimPrefix(command, lab.Command+" ")), &stdout, &stderr)
		err := grade.Replay(quiet{t}, v, run)
		if poll != (code == 1) || poll != (err != nil) {
			t.Errorf("%s: exit %d; %s: %v; want a failure only with the poll", command, code, run.TestFlags(), err)
		}
	}
	setFlag(t, "lab.replay", run.Name())
	setFlag(t, "lab.poll", "true")
	r := &fatalRecorder{TB: t}
	func() {
		defer func() { _ = recover() }()
		grade.Grade(r, v, grade.Options{})
	}()
	if !strings.HasPrefix(r.fatal, "STORM, declared OK") {
		t.Errorf("go test ... -lab.replay=%s -lab.poll: %q, want STORM", run.Name(), r.fatal)
	}
}

// fatalRecorder keeps the message of Fatal and stops the test's function.
type fatalRecorder struct {
	testing.TB
	fatal string
}

func (r *fatalRecorder) Fatal(args ...any) {
	r.fatal = fmt.Sprint(args...)
	panic("fatal")
}
func (r *fatalRecorder) Log(...any) {}
