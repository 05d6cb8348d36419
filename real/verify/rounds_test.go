package verify

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/scenarios"
)

// TestEveryFaultHasItsRoundAndBothLanguages: a fault kind added to the
// registry is played by a round of its own and says what it does in
// English and German.
func TestEveryFaultHasItsRoundAndBothLanguages(t *testing.T) {
	rounds := Rounds(1, 0)
	for _, k := range FaultKinds() {
		i := slices.IndexFunc(rounds, func(r Round) bool { return r.Name == string(k) })
		if i < 0 || len(rounds[i].Faults) != 1 || rounds[i].Faults[0].Kind != k {
			t.Errorf("no round plays %s alone", k)
		}
		if Describe(k, lang.English) == Describe(k, lang.German) {
			t.Errorf("%s has no German text", k)
		}
		if got, err := ParseFaultKind(string(k)); err != nil || got != k {
			t.Errorf("ParseFaultKind(%q) = %q, %v", k, got, err)
		}
	}
	if _, err := ParseFaultKind("stal"); err == nil || !strings.Contains(err.Error(), "valid: kill-on-arrival") {
		t.Errorf("ParseFaultKind(stal): %v, want the valid kinds", err)
	}
}

// TestTheSeedDrawsTheSameRoundsAndWorkloads: a replay is the same
// schedule of faults on the same workload; another seed draws another.
func TestTheSeedDrawsTheSameRoundsAndWorkloads(t *testing.T) {
	describe := func(seed uint64) string {
		var b strings.Builder
		for _, r := range Rounds(seed, 3) {
			fmt.Fprintf(&b, "%s %d %v %v\n", r.Name, r.Instances, r.Faults, Workload(r.Seed, r.Commands))
		}
		return b.String()
	}
	if describe(7) != describe(7) {
		t.Fatal("seed 7 drew two different schedules")
	}
	if describe(7) == describe(8) {
		t.Fatal("seeds 7 and 8 drew the same schedules")
	}
	for seed := uint64(1); seed <= 50; seed++ {
		r := RandomRound(seed, 1)
		kinds := map[FaultKind]bool{}
		for _, f := range r.Faults {
			if kinds[f.Kind] || f.At < 1 || f.At > 6 || r.Instances < defOf(f.Kind).instances {
				t.Fatalf("seed %d: %v with %d instances", seed, r.Faults, r.Instances)
			}
			kinds[f.Kind] = true
		}
	}
}

// TestTheWorkloadStartsWithTheStandardOneAndVaries: the matrix's
// commands first, then places, amendments, cancels and refused commands
// in two currencies.
func TestTheWorkloadStartsWithTheStandardOneAndVaries(t *testing.T) {
	w, standard := Workload(3, 200), len(scenarios.Workload())
	if len(w) != standard+200 || w[0].OrderID != "o-1" || w[5].Kind != orders.Cancel {
		t.Fatalf("workload starts %v", w[:standard])
	}
	kinds, currencies := map[orders.Kind]int{}, map[string]int{}
	for _, c := range w[standard:] {
		kinds[c.Kind]++
		if c.Kind == orders.Place {
			currencies[string(c.Amount.Currency)]++
		}
	}
	if kinds[orders.Place] == 0 || kinds[orders.Amend] == 0 || kinds[orders.Cancel] == 0 || len(currencies) != 2 {
		t.Errorf("commands %v, currencies %v", kinds, currencies)
	}
}

func TestSelectNamesTheValidRounds(t *testing.T) {
	all := Rounds(1, 2)
	got, err := Select(all, []string{"stall", "random-2"})
	if err != nil || len(got) != 2 || got[0].Name != "stall" || got[1].Name != "random-2" {
		t.Fatalf("Select: %v, %v", got, err)
	}
	if _, err := Select(all, []string{"random-3"}); err == nil || !strings.Contains(err.Error(), `unknown round "random-3" (valid: three-instances, kill-on-arrival`) {
		t.Errorf("Select(random-3): %v", err)
	}
}

// TestAFaultAddedToARoundIsParsedAndPlayed: --fault KIND@N, as a replay
// writes it, adds the fault to a round; a bad one names what is valid.
func TestAFaultAddedToARoundIsParsedAndPlayed(t *testing.T) {
	f, err := ParseFault("stall@20")
	if err != nil || f != (Fault{Kind: Stall, At: 20}) || f.String() != "stall@20" {
		t.Fatalf("ParseFault(stall@20) = %v, %v", f, err)
	}
	all := Rounds(1, 0)
	r := all[0].With(f)
	if r.Name != "three-instances" || len(r.Faults) != 1 || r.Faults[0] != f || r.Instances != 3 || !strings.HasSuffix(r.Text.EN, "; and stall@20") || len(all[0].Faults) != 0 {
		t.Errorf("With: %+v (the round it came from: %+v)", r, all[0])
	}
	for in, say := range map[string]string{"stall": "want KIND@N", "stal@2": `unknown fault "stal"`, "stall@0": "not a number >= 1", "stall@x": "not a number >= 1"} {
		if _, err := ParseFault(in); err == nil || !strings.Contains(err.Error(), say) {
			t.Errorf("ParseFault(%q): %v, want %q", in, err, say)
		}
	}
}
