package sim_test

import (
	"testing"

	"outboxlab/broker"
	"outboxlab/check"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// TestBillingsBudgetIsTheMostItsFaultsAllow: a message both poisoned and
// sent in an unknown version reaches billing as poison (it cannot even be
// read), and billing tries it as often as its policy tries poison before
// it parks it. Exploration found the reference STORM here when the budget
// was the last fault's (one attempt, for an unknown version).
func TestBillingsBudgetIsTheMostItsFaultsAllow(t *testing.T) {
	first := broker.Target{AggregateID: "o-1", Sequence: 1}
	cfg := scenarios.Matrix().Config(variant.Outbox())
	cfg.Faults = []sim.Fault{{Kind: sim.FaultPoison, Target: first}, {Kind: sim.FaultUnknownVersion, Target: first}}
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != check.OK || res.Situations[sim.BillingDeadLettered] == 0 {
		t.Fatalf("%s (billing dead-lettered %d times), want OK after billing parked o-1#1: %v", res.Outcome, res.Situations[sim.BillingDeadLettered], res.Violations)
	}
}

// TestATransientCorruptionCostsOneMoreAttempt: a message of an unknown
// version that also arrives corrupted once costs billing an attempt it
// cannot read, then one it parks at once: two, where the unknown version
// alone allows one. Exploration found the reference (and the exercises on
// its consumer) STORM here when the transient fault added nothing to the
// budget.
func TestATransientCorruptionCostsOneMoreAttempt(t *testing.T) {
	second := broker.Target{AggregateID: "o-1", Sequence: 2}
	cfg := scenarios.Matrix().Config(variant.Outbox())
	cfg.Faults = []sim.Fault{{Kind: sim.FaultUnknownVersion, Target: second}, {Kind: sim.FaultCorruptOnce, Target: second}}
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != check.OK || res.Situations[sim.BillingDeadLettered] == 0 {
		t.Fatalf("%s (billing dead-lettered %d times), want OK after billing parked o-1#2: %v", res.Outcome, res.Situations[sim.BillingDeadLettered], res.Violations)
	}
}

// TestCorruptedOnEveryAttemptIsADeadLetterByRight: a message corrupted in
// transit on each of the three attempts billing's policy makes is parked
// after the third, and that is no giving up: the policy was outlasted.
// Exploration found the reference GAVE_UP here when a transient fault
// allowed no dead letter whatever its count.
func TestCorruptedOnEveryAttemptIsADeadLetterByRight(t *testing.T) {
	first := broker.Target{AggregateID: "o-1", Sequence: 1}
	cfg := scenarios.Matrix().Config(variant.Outbox())
	cfg.Faults = []sim.Fault{{Kind: sim.FaultCorruptOnce, Target: first}, {Kind: sim.FaultCorruptOnce, Target: first}, {Kind: sim.FaultCorruptOnce, Target: first}}
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != check.OK || res.Situations[sim.BillingDeadLettered] == 0 {
		t.Fatalf("%s (billing dead-lettered %d times), want OK after billing parked o-1#1: %v", res.Outcome, res.Situations[sim.BillingDeadLettered], res.Violations)
	}
	cfg.Faults = cfg.Faults[:2] // twice: the third attempt reads it
	if res, err := sim.Run(cfg); err != nil || res.Outcome != check.OK || res.Situations[sim.BillingDeadLettered] != 0 {
		t.Fatalf("corrupted twice: %v %s, billing dead-lettered %d times, want OK without: %v", err, res.Outcome, res.Situations[sim.BillingDeadLettered], res.Violations)
	}
}
