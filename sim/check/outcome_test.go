package check_test

import (
	"testing"

	"outboxlab/sim/check"
)

// TestEveryOutcomeHasALetterAndAMeaning: the matrix's letters are
// distinct, and every outcome, n/a included, says what it means in both
// languages (the legends of every output come from here).
func TestEveryOutcomeHasALetterAndAMeaning(t *testing.T) {
	seen := map[string]check.Outcome{}
	for _, o := range append(check.Outcomes(), check.NotApplicable) {
		l := o.Letter()
		if prev, ok := seen[l]; ok || l == "?" || l == "" {
			t.Errorf("%s: letter %q (also %s's)", o, l, prev)
		}
		seen[l] = o
		if m := o.Meaning(); m.EN == "" || m.DE == "" || m.EN == m.DE {
			t.Errorf("%s: meaning %+v, want English and German", o, m)
		}
	}
	if check.NotApplicable.String() != "n/a" || check.NotApplicable >= check.OK {
		t.Errorf("NotApplicable is %q (%d), want n/a below OK", check.NotApplicable, int(check.NotApplicable))
	}
}
