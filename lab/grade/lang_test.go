package grade_test

import (
	"strings"
	"testing"

	"outboxlab/lab/grade"
	"outboxlab/lang/langtest"
	"outboxlab/mistakes"
	"outboxlab/variant"
)

func TestABadLanguageIsAnError(t *testing.T) {
	r := gradeWith(t, variant.Outbox(), grade.Options{}, map[string]string{"lab.lang": "fr"})
	if !strings.Contains(r.fatal, `-lab.lang: "fr" is not a language: want one of en, de`) {
		t.Errorf("Grade with -lab.lang=fr: fatal %q, want it to name the valid languages", r.fatal)
	}
}

func TestABadDepthIsAnError(t *testing.T) {
	r := gradeWith(t, variant.Outbox(), grade.Options{}, map[string]string{"lab.depth": "deep"})
	if !strings.Contains(r.fatal, `-lab.depth: "deep" is not a depth (valid: quick, course, full)`) {
		t.Errorf("Grade with -lab.depth=deep: fatal %q, want it to name the valid depths", r.fatal)
	}
}

// TestGermanGradingHasNoEnglish grades failing variants with
// -lab.lang=de, and replays one, and fails on English prose in what a
// learner reads (langtest: ids, outcome words and commands left out; the
// replay's timeline log is the simulator's, not yet German).
func TestGermanGradingHasNoEnglish(t *testing.T) {
	if testing.Short() {
		t.Skip("grades three variants")
	}
	flags := map[string]string{"lab.lang": "de", "lab.depth": "quick"}
	replay := map[string]string{"lab.lang": "de", "lab.replay": "relay.after-mark"}
	claimsCorrect := mistakes.MarkBeforeSend()
	claimsCorrect.Expect = nil // as a learner's variant: OK everywhere
	for _, c := range []struct {
		v     variant.Variant
		flags map[string]string
	}{{swallowing(), flags}, {claimsCorrect, flags}, {claimsCorrect, replay}} {
		r := gradeWith(t, c.v, grade.Options{}, c.flags)
		out := strings.Join(append(append(r.errors, r.logs...), r.fatal), "\n")
		if !strings.Contains(out, "LOST") && !strings.Contains(out, "UNSAFE") && !strings.Contains(out, "PHANTOM") {
			t.Errorf("%s %v: no failure graded:\n%s", c.v.Name, c.flags, out)
		}
		for _, line := range append(langtest.English(langtest.WithoutSchedule(out)), langtest.Numbers(langtest.WithoutSchedule(out))...) {
			t.Errorf("%s %v: English: %s", c.v.Name, c.flags, line)
		}
	}
}
