package grade_test

import (
	"strings"
	"testing"

	"outboxlab/lab/grade"
	"outboxlab/lab/variant"
)

func TestABadLanguageIsAnError(t *testing.T) {
	r := gradeWith(t, variant.Outbox(), grade.Options{}, map[string]string{"lab.lang": "fr"})
	if !strings.Contains(r.fatal, "-lab.lang=fr: want en or de") {
		t.Errorf("Grade with -lab.lang=fr: fatal %q, want it to name the valid languages", r.fatal)
	}
}

func TestABadDepthIsAnError(t *testing.T) {
	r := gradeWith(t, variant.Outbox(), grade.Options{}, map[string]string{"lab.depth": "deep"})
	if !strings.Contains(r.fatal, `-lab.depth: "deep" is not a depth (valid: quick, course, full)`) {
		t.Errorf("Grade with -lab.depth=deep: fatal %q, want it to name the valid depths", r.fatal)
	}
}
