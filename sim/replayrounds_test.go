package sim_test

import (
	"testing"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/lab/check"
	"outboxlab/lab/variant"
	"outboxlab/orders"
	"outboxlab/sim"
)

// TestAReplayThatMakesADeadLetterIsReplayedToo is the schedule exploration
// found when it first drew wrong-currency: o-1#1 is poison and becomes a
// dead letter; o-1#2, an amendment in the wrong currency, arrives while
// #1 is missing and is parked as it was delivered. The operator fixes
// both causes and replays #1; applying it brings #2's turn, and the
// parked copy, still in the wrong currency, fails: a new dead letter,
// which the operator's second look replays from the broker's original.
func TestAReplayThatMakesADeadLetterIsReplayedToo(t *testing.T) {
	workload := []sim.Command{
		place(0, "o-1", "10.00"),
		{At: time.Second, Command: orders.Command{Kind: orders.Amend, OrderID: "o-1", Amount: domain.MustMoney("1.00", "EUR")}},
	}
	cfg := sim.DefaultConfig(variant.Outbox(), workload, 1)
	cfg.Faults = []sim.Fault{
		{Kind: sim.FaultPoison, Target: broker.Target{AggregateID: "o-1", Sequence: 1}},
		{Kind: sim.FaultWrongCurrency, Target: broker.Target{AggregateID: "o-1", Sequence: 2}},
	}
	cfg.Operations = []sim.Operation{{Kind: sim.OpFix}} // the fix and its rounds alone
	res := run(t, cfg)
	if res.Outcome != check.OK {
		t.Fatalf("outcome %s: %v", res.Outcome, res.Violations)
	}
	replays := 0
	for _, e := range res.Trace {
		if e.Process == "billing" && e.Action == "consumer.replay" {
			replays++
		}
	}
	if replays != 2 {
		t.Errorf("billing replayed %d time(s), want 2: #1's dead letter, then #2's", replays)
	}
}
