package explore

import (
	"math/rand/v2"
	"slices"
	"testing"

	"outboxlab/sim"
)

// TestEveryFaultKindIsDrawnOrSaysWhyNot: each of sim's fault kinds is in
// faultKinds or in notDrawn, not both, and the schedules Generate draws
// show exactly the kinds it says it draws. A fault kind added to sim fails
// it until exploration draws the kind or says why it does not.
func TestEveryFaultKindIsDrawnOrSaysWhyNot(t *testing.T) {
	for _, k := range sim.FaultKinds {
		_, excluded := notDrawn[k]
		if drawn := slices.Contains(faultKinds, k); drawn == excluded {
			t.Errorf("fault kind %s: in faultKinds %v, in notDrawn %v; want exactly one", k, drawn, excluded)
		}
	}
	for _, k := range faultKinds {
		if !slices.Contains(sim.FaultKinds, k) {
			t.Errorf("faultKinds has %s, which sim.FaultKinds does not", k)
		}
	}
	for k, why := range notDrawn {
		if !slices.Contains(sim.FaultKinds, k) || why == "" {
			t.Errorf("notDrawn has %s (reason %q): not in sim.FaultKinds, or no reason", k, why)
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
