package explore

import (
	"math/rand/v2"
	"slices"
	"testing"

	"outboxlab/sim"
)

// TestEveryFaultKindIsDrawnOrSaysWhyNot: each of sim's fault kinds is
// drawn or says why not (sim.FaultSpec's NotDrawn), not both, and the schedules Generate draws
// show exactly the kinds it says it draws. A fault kind added to sim fails
// it until exploration draws the kind or says why it does not.
func TestEveryFaultKindIsDrawnOrSaysWhyNot(t *testing.T) {
	for _, spec := range sim.FaultSpecs() {
		if drawn := slices.Contains(faultKinds, spec.Kind); drawn == (spec.NotDrawn != "") {
			t.Errorf("fault kind %s: drawn %v, NotDrawn %q; want exactly one of the two", spec.Kind, drawn, spec.NotDrawn)
		}
	}

	seen := map[sim.FaultKind]bool{}
	src := randSource{rand.New(rand.NewPCG(1, 2))}
	for range 2000 {
		for _, f := range Generate(src).Faults {
			seen[f.Kind] = true
		}
	}
	want := append(slices.Clone(faultKinds), sim.FaultCommitFailure)
	for _, k := range sim.FaultKinds {
		if seen[k] != slices.Contains(want, k) {
			t.Errorf("fault kind %s: drawn in 2000 schedules %v, want %v", k, seen[k], !seen[k])
		}
	}
}
