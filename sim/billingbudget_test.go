package sim_test

import (
	"testing"

	"outboxlab/broker"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// parks runs the reference on the matrix's workload under faults and
// reports whether billing put a message aside as a dead letter; anything
// but OK fails the test.
func parks(t *testing.T, faults ...sim.Fault) bool {
	t.Helper()
	cfg := scenarios.Matrix().Config(variant.Outbox())
	cfg.Faults = faults
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != variant.OK {
		t.Fatalf("%v: %s, want OK: %v", faults, res.Outcome, res.Violations)
	}
	return res.Situations[sim.BillingDeadLettered] > 0
}

var (
	first  = broker.Target{AggregateID: "o-1", Sequence: 1}
	second = broker.Target{AggregateID: "o-1", Sequence: 2}
)

// TestBillingsBudgetIsTheMostItsFaultsAllow: a message both poisoned and
// sent in an unknown version reaches billing as poison (it cannot even be
// read), and billing tries it as often as its policy tries poison before
// it parks it. Exploration found the reference STORM here when the budget
// was the last fault's (one attempt, for an unknown version).
func TestBillingsBudgetIsTheMostItsFaultsAllow(t *testing.T) {
	if !parks(t, sim.Fault{Kind: sim.FaultPoison, Target: first}, sim.Fault{Kind: sim.FaultUnknownVersion, Target: first}) {
		t.Fatal("billing never parked o-1#1")
	}
}

// TestATransientCorruptionCostsOneMoreAttempt: a message of an unknown
// version that also arrives corrupted once costs billing an attempt it
// cannot read, then one it parks at once: two, where the unknown version
// alone allows one. Exploration found the reference (and the exercises on
// its consumer) STORM here when the transient fault added nothing to the
// budget.
func TestATransientCorruptionCostsOneMoreAttempt(t *testing.T) {
	if !parks(t, sim.Fault{Kind: sim.FaultUnknownVersion, Target: second}, sim.Fault{Kind: sim.FaultCorruptOnce, Target: second}) {
		t.Fatal("billing never parked o-1#2")
	}
}

// TestCorruptedOnEveryAttemptIsADeadLetterByRight: a message corrupted in
// transit on each of the three attempts billing's policy makes is parked
// after the third, and that is no giving up: the policy was outlasted.
// Corrupted twice, the third attempt reads it. Exploration found the
// reference GAVE_UP here when a transient fault allowed no dead letter
// whatever its count.
func TestCorruptedOnEveryAttemptIsADeadLetterByRight(t *testing.T) {
	once := sim.Fault{Kind: sim.FaultCorruptOnce, Target: first}
	if !parks(t, once, once, once) {
		t.Error("corrupted three times: billing never parked o-1#1")
	}
	if parks(t, once, once) {
		t.Error("corrupted twice: billing parked o-1#1, which its third attempt reads")
	}
}
