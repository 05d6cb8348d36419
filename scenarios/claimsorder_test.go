package scenarios

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// chapterSections are the sections of the chapters whose sections have
// names, in the order the chapter has them; chapter 000 numbers its own.
var chapterSections = map[string][]string{
	"001": {"Transaktionsgrenze", "Reihenfolge", "Rückstau", "Fehlerinjektion", "Einfach erklärt"},
	"003": {"Dual-Write", "Schema", "Relay", "Polling vs CDC", "Idempotenz", "Aufbewahrung", "Erkenntnisse"},
	"004": {"Wie funktioniert es", "Lohnt sich", "Nicht das Richtige", "Nachteile", "Typische Fehler", "Weiterführend"},
}

// section is where c's section stands in its chapter, and whether the
// chapter has it.
func section(c Claim) (int, bool) {
	_, name, _ := strings.Cut(c.Where, " ")
	if c.Chapter() == "000" {
		n, err := strconv.Atoi(strings.TrimPrefix(name, "§"))
		return n, err == nil && strings.HasPrefix(name, "§")
	}
	i := slices.Index(chapterSections[c.Chapter()], name)
	return i, i >= 0
}

// TestClaimsFollowTheChapters: the claims come chapter by chapter, each
// chapter's in the order of its sections, and every section is one the
// chapter has (§9 after §8, 003's Aufbewahrung before its Erkenntnisse).
func TestClaimsFollowTheChapters(t *testing.T) {
	prevChapter, prevSection := -1, -1
	for _, c := range Claims() {
		ch := slices.Index(Chapters, c.Chapter())
		sec, ok := section(c)
		switch {
		case !ok:
			t.Errorf("claims.txt:%d: %q is no section of chapter %s", c.Line, c.Where, c.Chapter())
		case ch < prevChapter || ch == prevChapter && sec < prevSection:
			t.Errorf("claims.txt:%d: %q comes after a later section of the chapters", c.Line, c.Where)
		}
		prevChapter, prevSection = ch, sec
	}
}

// TestAnOutcomeWantHasItsGerman: a claim's want of an outcome's line has
// its German from OutcomeLine; a want-de gives any other want its German;
// one without stays the same in both.
func TestAnOutcomeWantHasItsGerman(t *testing.T) {
	cs, err := ParseClaims("t.txt", "claim 000 §2\nen x\nde y\nrun scenario happy-path\nwant Outcome: LOST (expected LOST)\nwant relay.recover\nwant committed\nwant-de committet\ncount 2 broker: published\ncount-de broker: veröffentlicht\n")
	if err != nil {
		t.Fatal(err)
	}
	w := cs[0].Want
	if w[0].DE != "Ergebnis: LOST (erwartet LOST)" || w[1].DE != "relay.recover" || w[2].DE != "committet" || cs[0].Counts[0].Text.DE != "broker: veröffentlicht" {
		t.Errorf("wants %+v, counts %+v", w, cs[0].Counts)
	}
	if _, err := ParseClaims("t.txt", "claim 000 §2\nen x\nde y\nrun scenario happy-path\nwant-de committet\nwant x\n"); err == nil || !strings.Contains(err.Error(), "t.txt:5: want-de") {
		t.Errorf("a want-de before its want: %v", err)
	}
}

// TestClaimsHandsOutACopy: a caller that filters the claims in place
// (labrun claims --chapter 000) leaves the next caller every claim.
func TestClaimsHandsOutACopy(t *testing.T) {
	n := len(Claims())
	_ = slices.DeleteFunc(Claims(), func(c Claim) bool { return c.Chapter() != "000" })
	if got := Claims(); len(got) != n || got[n-1].Chapter() != "004" {
		t.Fatalf("after a caller filtered its claims, Claims has %d ending in chapter %s, want %d ending in 004", len(got), got[len(got)-1].Chapter(), n)
	}
}
