package verdict

import (
	"cmp"
	"slices"

	"outboxlab/lang"
	"outboxlab/sim"
	"outboxlab/variant"
)

// Failure is how many matrix cells of a variant ended with one outcome
// other than OK.
type Failure struct {
	Outcome variant.Outcome `json:"outcome"`
	Points  int             `json:"points"`
}

// Failures counts the matrix's cells that end other than OK, by outcome,
// worst first (the legends' order). In a verdict without findings every
// one of them is as the variant declares.
func (v Verdict) Failures() []Failure {
	var red []sim.Cell
	for _, c := range v.Cells {
		if c.Outcome > variant.OK {
			red = append(red, c)
		}
	}
	var out []Failure
	for _, cells := range GroupBy(red, func(c sim.Cell) variant.Outcome { return c.Outcome }) {
		out = append(out, Failure{cells[0].Outcome, len(cells)})
	}
	slices.SortFunc(out, func(a, b Failure) int { return cmp.Compare(b.Outcome, a.Outcome) })
	return out
}

// PassedText says what a verdict without findings means, at every door:
// OK where every run was OK; for a variant that declares failures, how it
// fails, with the chapter that tells it ("" for none): "fails as
// declared: LOST at 6 points, PHANTOM at 2 (chapter 000 section 2)";
// and what no run tested (Untested), after a semicolon.
func (v Verdict) PassedText(chapter lang.Text) lang.Text {
	t := v.passedText(chapter)
	if u := v.Untested(); u.EN != "" {
		t = lang.Textf(lang.Text{EN: "%s; %s", DE: "%s; %s"}, t, u)
	}
	return t
}

// passedText is PassedText without what no run tested.
func (v Verdict) passedText(chapter lang.Text) lang.Text {
	failures := v.Failures()
	if len(failures) == 0 {
		return lang.Plain("OK")
	}
	var parts []lang.Text
	for i, f := range failures {
		points := lang.Text{EN: " at %d points", DE: " an %d Punkten"}
		switch {
		case f.Points == 1:
			points = lang.Text{EN: " at %d point", DE: " an %d Punkt"}
		case i > 0:
			points = lang.Text{EN: " at %d", DE: " an %d"}
		}
		parts = append(parts, lang.Textf(lang.Text{EN: "%s" + points.EN, DE: "%s" + points.DE}, f.Outcome, f.Points))
	}
	t := lang.Textf(lang.Text{EN: "fails as declared: %s", DE: "scheitert wie erwartet: %s"}, lang.Join(parts, ", "))
	if chapter.EN != "" {
		t = lang.Textf(lang.Text{EN: "%s (chapter %s)", DE: "%s (Kapitel %s)"}, t, chapter)
	}
	return t
}

// MostRelays returns the most relays any run of the matrix started: 0
// for a variant without a relay.
func (v Verdict) MostRelays() int {
	n := 0
	for _, c := range v.Cells {
		n = max(n, c.Relays)
	}
	return n
}

// Untested says what no run of the grading tested, with why, or nothing:
// a variant with a relay that no run started twice of (it supports one,
// MaxRelays 1) passed without its claims, leases and recovery ever met
// another relay's, and its grade must not read as if they had: "no run
// had two relays: the variant supports one (MaxRelays 1)". It is read
// from the matrix's runs; the declaration only gives the reason.
func (v Verdict) Untested() lang.Text {
	if v.MostRelays() != 1 {
		return lang.Text{}
	}
	if v.MaxRelays == 1 {
		return lang.Text{EN: "no run had two relays: the variant supports one (MaxRelays 1)", DE: "kein Lauf hatte zwei Relays: die Variante unterstützt eines (MaxRelays 1)"}
	}
	return lang.Text{EN: "no run had two relays", DE: "kein Lauf hatte zwei Relays"}
}
