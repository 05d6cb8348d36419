package grade_test

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"outboxlab/lab/grade"
	"outboxlab/lab/variant"
)

func TestABadLanguageIsAnError(t *testing.T) {
	if err := flag.Set("lab.lang", "fr"); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("lab.lang", "")
	r := &fatalRecorder{TB: t}
	func() {
		defer func() { _ = recover() }()
		grade.Grade(r, variant.Outbox(), grade.Options{})
	}()
	if !strings.Contains(r.fatal, "-lab.lang=fr: want en or de") {
		t.Errorf("Grade with -lab.lang=fr: fatal %q, want it to name the valid languages", r.fatal)
	}
}

// fatalRecorder keeps the message of Fatal and stops the grading.
type fatalRecorder struct {
	testing.TB
	fatal string
}

func (r *fatalRecorder) Fatal(args ...any) {
	r.fatal = strings.TrimSpace(fmt.Sprint(args...))
	panic("fatal")
}
