package mutation

import (
	"slices"
	"strings"
	"testing"

	"outboxlab/mistakes"
	"outboxlab/scenarios"
	"outboxlab/sim"
)

// TestOrderPutsTheRowsThatCaughtMostFirst: saved results counted by the
// matrix row of each killed mutant's first red matrix cell (Point), most
// first, ties in the matrix's order; a result no matrix cell caught
// (a sweep, a polled cell, an exploration, another variant's row)
// counts for none, whatever its rows' words say.
func TestOrderPutsTheRowsThatCaughtMostFirst(t *testing.T) {
	h := NewHistory([]Result{
		{Failed: []string{"rejected: STORM"}, Point: "rejected"},
		{Failed: []string{"rejected: LOST", "poison: LOST"}, Point: "rejected"},
		{Failed: []string{"rejected: LOST", "poison: STORM"}, Point: "rejected"},
		{Failed: []string{"sweep relay.after-claim@1+relay.after-send@2: STUCK", "poison: LOST"}, Point: "poison"},
		{Failed: []string{"relay.after-send@2 (2 relays): DUPLICATE", "rejected: LOST"}, Point: "relay.after-send"},
		{Failed: []string{"rejected: never reached [cleaned-up]"}, Point: "rejected"},
		{Failed: []string{"polled at stall: UNSAFE", "explore: LOST (crash x)", "listen-to-yourself at rejected: LOST"}},
		{Failed: []string{"poison+commit-failure:consumer.count-failure@1: LOST"}},
		{Failed: []string{"relay.after-send@1: LOST"}, Point: "no-such-row"},
		{Failed: nil},
	})
	got := h.Order()
	want := []string{"rejected", "relay.after-send", "poison"}
	if !slices.Equal(got, want) {
		t.Errorf("Order() = %v, want %v", got, want)
	}
}

// TestAResultNamesItsFirstRedMatrixRow: a grading's result carries the
// row of its first red matrix cell as the grader typed it, not as its
// rows' words say it: a mutant of the reference that a crash cell
// catches names the crash point, with no occurrence or relays.
func TestAResultNamesItsFirstRedMatrixRow(t *testing.T) {
	v := mistakes.DualWrite() // the reference's service with one change
	v.Name, v.Expect = "mutant", nil
	r := gradeWith(v, Matrix.options())
	if !r.Killed() || r.Point == "" {
		t.Fatalf("%+v: want killed with its first red matrix row", r)
	}
	if p, err := scenarios.FindPoint(r.Point); err != nil || p.Kind != sim.KindCrash || !strings.HasPrefix(r.Failed[0], r.Point+"@") {
		t.Errorf("Point %q (%v), first row %q: want the crash point of the first row, typed", r.Point, err, r.Failed[0])
	}
}

// TestReuseOnlyEquivalentsOfUnchangedFiles: a saved result stands without
// grading only for a survivor Explain calls equivalent (or metrics) in
// a file of the same hash: not a killed mutant, not a blind spot, not a
// file changed since, not a result saved without a hash.
func TestReuseOnlyEquivalentsOfUnchangedFiles(t *testing.T) {
	equivalent := Mutant{Key: "outbox/relay.go:ClaimDue:delete:if len(batch) == 0 { return nil, nil }"}
	blind := Mutant{Key: "outbox/relay.go:ClaimDue:bound:len(batch) < r.cfg.BatchSize"}
	for _, c := range []struct {
		name  string
		saved Result
		m     Mutant
		hash  string
		want  bool
	}{
		{"an equivalent survivor of the same file", Result{Hash: "h1"}, equivalent, "h1", true},
		{"the file changed since", Result{Hash: "h1"}, equivalent, "h2", false},
		{"saved without a hash", Result{}, equivalent, "h1", false},
		{"killed before", Result{Hash: "h1", Failed: []string{"rejected: LOST"}}, equivalent, "h1", false},
		{"a blind spot", Result{Hash: "h1"}, blind, "h1", false},
		{"unexplained", Result{Hash: "h1"}, Mutant{Key: "x"}, "h1", false},
	} {
		if got := Reuse(c.saved, c.m, c.hash); got != c.want {
			t.Errorf("%s: Reuse = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestKeepRowsKeepsAListTheFirstRedConfirms: a routine run's result of
// one row keeps the saved list of every red cell when the file is
// unchanged and the list holds the row; otherwise the fresh row stands.
func TestKeepRowsKeepsAListTheFirstRedConfirms(t *testing.T) {
	saved := Result{Hash: "h", Failed: []string{"relay.after-send@1: DUPLICATE", "rejected: LOST"}}
	fresh := Result{ID: 7, Hash: "h", Failed: []string{"rejected: LOST"}}
	if got := KeepRows(saved, fresh); got.ID != 7 || !slices.Equal(got.Failed, saved.Failed) {
		t.Errorf("an unchanged file: %+v, want the saved rows", got)
	}
	for name, f := range map[string]Result{
		"changed file":     {Hash: "h2", Failed: []string{"rejected: LOST"}},
		"another row":      {Hash: "h", Failed: []string{"poison: LOST"}},
		"survived now":     {Hash: "h"},
		"crashed now":      {Hash: "h", Crashed: "panic: x", Failed: []string{"rejected: LOST"}},
		"already all rows": {Hash: "h", Failed: []string{"rejected: LOST", "poison: LOST"}},
	} {
		if got := KeepRows(saved, f); !slices.Equal(got.Failed, f.Failed) {
			t.Errorf("%s: %v, want the fresh %v", name, got.Failed, f.Failed)
		}
	}
}
