package grade

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"outboxlab/lab/verdict"
	"outboxlab/lang"
	"outboxlab/variant"
)

// The flags a grading and a replay command set.
var (
	replay   = flag.String("lab.replay", "", "replay one run of the graded variant as a timeline: a scenario (relay.after-send@2, P@1+Q@1, a story), [ROW+]commit-failure:BOUNDARY@K or explore:RUNS:SEED")
	relays   = flag.Int("lab.relays", 0, "with -lab.replay: how many relays run (default: the scenario's own)")
	poll     = flag.Bool("lab.poll", false, "with -lab.replay: poll every relay as Relay.Run polls it (a run of the polled matrix)")
	depth    = flag.String("lab.depth", verdict.Course.String(), "how hard to grade: "+strings.Join(verdict.Depths, ", "))
	exercise = flag.Bool("exercise", false, "grade an exercise (its starter fails until it is solved)")
	langFlag = flag.String("lab.lang", "", "the language of failures and hints: en or de (default: de when LC_ALL, or else LANG, starts with de; else en)")
)

// language is the language of failures and hints: as -lab.lang says,
// else as the environment does.
func language() (lang.Lang, error) {
	l, err := lang.Detect(*langFlag, os.Getenv)
	if err != nil {
		return l, fmt.Errorf("-lab.lang: %w", err)
	}
	return l, nil
}

// A Hint says what to look at when a variant fails with an outcome, in
// English and in German.
type Hint = lang.Text

// Exercise grades an exercise's variant with Grade when the test runs with
// -exercise, and skips otherwise, so that go test ./... stays green while
// an exercise is unsolved. opts say per outcome (and per row) what to look
// at, and which stories the exercise plays beyond the grader's runs; its
// Flags are -exercise.
func Exercise(t testing.TB, v variant.Variant, opts Options) {
	t.Helper()
	if !*exercise {
		t.Skip("grade the exercise with -exercise")
	}
	opts.Flags = "-exercise"
	Grade(t, v, opts)
}

// Variant grades v in a test at the depth -lab.depth names (course by
// default): with -lab.replay it plays that one run as a timeline in the
// test's log and fails if it breaks what v declares; without, it fails
// the test with one finding per cause, each with a hint and the command
// that replays it, and under -v it logs what passed.
func Variant(t testing.TB, v variant.Variant) {
	t.Helper()
	Grade(t, v, Options{})
}

// Options refine what Grade prints.
type Options struct {
	// Hints say, per outcome, what to look at; printed under a finding
	// of that outcome (the lab has its own for the other causes).
	Hints map[variant.Outcome]Hint
	// PointHints say what to look at when a finding was first found at
	// a matrix row (its point id), or in an exploration whose shrunk
	// schedule has a fault of that kind: there the cause is that row's or
	// fault's, and its hint wins over the outcome's (clock-skew: whose
	// clock judged the lease?).
	PointHints map[string]Hint
	// Stories are named stories the grading plays too, each judged by
	// what v declares for it (an exercise whose mistake only a story
	// shows: two billing instances racing on one delivery).
	Stories []string
	// Flags are added to every replay command, e.g. "-exercise".
	Flags string
}

// width is what a finding's lines fit in.
const width = 100

// Grade is Variant with hints and extra flags.
func Grade(t testing.TB, v variant.Variant, opts Options) {
	t.Helper()
	l, err := language()
	if err != nil {
		t.Fatal(err)
	}
	if *replay != "" || *relays != 0 || *poll {
		run, err := runOf(*replay, *relays, *poll)
		if err == nil {
			err = Replay(t, v, run)
		}
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	d, err := verdict.ParseDepth(*depth)
	if err != nil {
		t.Fatalf("-lab.depth: %v", err)
	}
	vd, err := verdict.Grade(v, verdict.Options{Depth: d})
	if err != nil {
		t.Fatal(err)
	}
	command := fmt.Sprintf("go test %s -run '^%s$'", callerDir(), t.Name())
	if opts.Flags != "" {
		command += " " + opts.Flags
	}
	if u := vd.Untested(); u.EN != "" && !vd.Passed() {
		// A failing grade says it too, as labrun grade's header does: its
		// findings were found without a second relay.
		t.Log(u.In(l))
	}
	for _, g := range vd.Groups() {
		hint := lang.Text{}
		if g.Cause == verdict.CauseOutcome {
			hint = opts.Hints[g.Outcome]
		}
		if h, ok := pointHint(opts.PointHints, g.First()); ok {
			hint = h
		}
		t.Errorf("%s", g.Report(l, hint, command+" "+g.First().Run.TestFlags(), width))
	}
	storiesPassed := gradeStories(t, v, opts, l, command)
	if vd.Passed() && storiesPassed {
		t.Log(lang.Textf(lang.Text{EN: "graded %s runs at depth %s: %s", DE: "%s Läufe bewertet, Tiefe %s: %s"}, lang.Count(int64(vd.Runs())), vd.Depth, vd.PassedText(lang.Text{})).In(l))
	}
}

// callerDir returns the directory of the package under test, as go test
// names it from the module's root ("./mine"): go test runs a package's
// tests in its directory.
func callerDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for root := dir; ; root = filepath.Dir(root) {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			rel, err := filepath.Rel(root, dir)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		if filepath.Dir(root) == root {
			return "."
		}
	}
}

// pointHint is the hint of PointHints for f: its row's, or that of a fault
// kind in its exploration's shrunk schedule.
func pointHint(hints map[string]Hint, f verdict.Finding) (Hint, bool) {
	if h, ok := hints[f.Point]; ok && f.Point != "" {
		return h, true
	}
	for _, k := range f.Run.Faults {
		if h, ok := hints[string(k)]; ok {
			return h, true
		}
	}
	return Hint{}, false
}
