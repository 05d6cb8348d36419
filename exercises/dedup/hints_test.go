package dedup

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"outboxlab/internal/golden"
	"outboxlab/lab/grade"
)

// recorder is a test that keeps what Grade reports instead of failing.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, strings.TrimSpace(fmt.Sprintf(format, args...)))
}

func (r *recorder) Name() string { return "TestExercise" }

// TestHintsInBothLanguages grades the starter as TestExercise does and
// keeps what a learner reads, in English and with -lab.lang=de in German.
// (With -tags solution there is nothing to read: it skips.)
func TestHintsInBothLanguages(t *testing.T) {
	if testing.Short() {
		t.Skip("grades a variant twice")
	}
	if solved {
		t.Skip("the solution passes")
	}
	for _, lang := range []string{"en", "de"} {
		t.Run(lang, func(t *testing.T) {
			if err := flag.Set("lab.lang", lang); err != nil {
				t.Fatal(err)
			}
			defer flag.Set("lab.lang", "")
			r := &recorder{TB: t}
			grade.Grade(r, Variant(), grade.Options{Hints: Hints, Flags: "-exercise"})
			if len(r.errors) == 0 {
				t.Fatal("the dedup starter passed its grading")
			}
			got := strings.Join(r.errors, "\n") + "\n"
			golden.Check(t, "exercise-dedup."+lang+".txt", got)
		})
	}
}
