package variant_test

import (
	"testing"

	"outboxlab/variant"
)

// TestEveryOutcomeHasALetterAndAMeaning: the matrix's letters are
// distinct, and every outcome, n/a included, says what it means in both
// languages (the legends of every output come from here).
func TestEveryOutcomeHasALetterAndAMeaning(t *testing.T) {
	seen := map[string]variant.Outcome{}
	for _, o := range append(variant.Outcomes(), variant.NotApplicable) {
		l := o.Letter()
		if prev, ok := seen[l]; ok || l == "?" || l == "" {
			t.Errorf("%s: letter %q (also %s's)", o, l, prev)
		}
		seen[l] = o
		if m := o.Meaning(); m.EN == "" || m.DE == "" || m.EN == m.DE {
			t.Errorf("%s: meaning %+v, want English and German", o, m)
		}
	}
	if variant.NotApplicable.String() != "n/a" || variant.NotApplicable >= variant.OK {
		t.Errorf("NotApplicable is %q (%d), want n/a below OK", variant.NotApplicable, int(variant.NotApplicable))
	}
}
