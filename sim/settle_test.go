package sim_test

import (
	"testing"
	"time"

	"outboxlab/broker"
	"outboxlab/check"
	"outboxlab/sim"
	"outboxlab/variant"
)

// TestTheOperatorWaitsForARecoveryToEnd: the broker refuses o-1#1 until
// its cause is fixed, so it becomes a dead letter; then the only relay
// dies for good holding its claim on o-2#1. The operator's replay
// restarts it: its recovery, which stops before its commit as every task
// does, runs to its end before the replay of the dead letter runs on the
// same relay (a replay from inside the suspended recovery would cross a
// boundary of a process in the middle of another activity).
func TestTheOperatorWaitsForARecoveryToEnd(t *testing.T) {
	workload := []sim.Command{place(0, "o-1", "10.00"), place(2*time.Hour, "o-2", "20.00")}
	cfg := sim.DefaultConfig(variant.Outbox(), workload, 1)
	cfg.Faults = []sim.Fault{{Kind: sim.FaultRejected, Target: broker.Target{AggregateID: "o-1", Sequence: 1}}}
	claims := run(t, cfg).Reached["relay.after-claim"]
	cfg.Crashes = []sim.Crash{{Point: "relay.after-claim", Occurrence: claims, ForGood: true}}
	res := run(t, cfg)
	if len(res.Fired) != 1 || res.Outcome != check.Stuck {
		t.Fatalf("crashes %v, outcome %s (want STUCK: o-2#1 stays claimed until the check): %v", res.Fired, res.Outcome, res.Violations)
	}
	var effects []string
	for _, e := range res.Trace {
		if e.Process == "relay-1" && (e.Action == "relay.recover" || e.Action == "relay.replay") {
			effects = append(effects, e.Action)
		}
	}
	if len(effects) != 2 || effects[0] != "relay.recover" {
		t.Errorf("relay-1's effects after its restart: %v, want its recovery, then the replay", effects)
	}
}
