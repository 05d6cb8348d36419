// Package startertest keeps what a learner reads when an exercise's
// starter, as shipped, is graded: in English and in German, as golden
// files under the exercise's testdata/ (starter.en.txt, starter.de.txt),
// at most twenty lines of at most a hundred columns each. It runs only
// when OUTBOXLAB_STARTERS is set (.ci/run sets it, without -tags
// solution): a learner's solved starter passes, and is green without it.
package startertest

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"outboxlab/internal/golden"
	"outboxlab/lab/grade"
	"outboxlab/variant"
)

// maxLines is how many lines a starter's grading may print: a terminal's
// screen. (It was 20, until the order check at the broker found that
// sendfirst's early mark also lets an order's next event overtake: three
// findings of one mistake, each with its hint.)
const maxLines = 30

// Check grades the exercise's variant v as its test does with -exercise,
// in both languages, and compares what a learner reads with the golden
// files.
func Check(t *testing.T, v variant.Variant, opts grade.Options) {
	if os.Getenv("OUTBOXLAB_STARTERS") == "" {
		t.Skip("grades the shipped starter: set OUTBOXLAB_STARTERS=1 (.ci/run does)")
	}
	for _, lang := range []string{"en", "de"} {
		t.Run(lang, func(t *testing.T) {
			if err := flag.Set("lab.lang", lang); err != nil {
				t.Fatal(err)
			}
			defer flag.Set("lab.lang", "")
			r := &Recorder{TB: t}
			opts.Flags = "-exercise"
			grade.Grade(r, v, opts)
			if len(r.Errors) == 0 {
				t.Fatalf("the starter of %s passed its grading", v.Name)
			}
			got := strings.Join(r.Errors, "\n") + "\n"
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			if len(lines) > maxLines {
				t.Errorf("%d lines, want at most %d:\n%s", len(lines), maxLines, got)
			}
			for _, l := range lines {
				if n := len([]rune(l)); n > 100 {
					t.Errorf("a line of %d columns: %q", n, l)
				}
			}
			golden.Check(t, "starter."+lang+".txt", got)
		})
	}
}

// Recorder is a test that keeps what a grading reports instead of
// failing, named as an exercise's grading test is (its replay commands
// say -run '^TestExercise$'): an exercise's test grades a broken fix with
// it and reads what a learner would.
type Recorder struct {
	testing.TB
	Errors []string
}

// Errorf keeps the report.
func (r *Recorder) Errorf(format string, args ...any) {
	r.Errors = append(r.Errors, strings.TrimSpace(fmt.Sprintf(format, args...)))
}

// Name is the exercise's grading test.
func (r *Recorder) Name() string { return "TestExercise" }
