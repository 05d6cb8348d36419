package sim_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/orders"
	"outboxlab/sim"
	"outboxlab/variant"
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
	if res.Outcome != variant.OK {
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

// misreportingReplay is the reference relay whose replay returns an error
// after it committed: the operator is told the replay failed.
type misreportingReplay struct{ *variant.RelayAdapter }

func (r misreportingReplay) ReplayDeadLetters() (int, error) {
	n, err := r.RelayAdapter.ReplayDeadLetters()
	if err == nil && n > 0 {
		err = errors.New("replay: timed out") // it did not
	}
	return n, err
}

// TestAReplayThatMisreportsIsNamed: the operator's replay may return an
// error when the broker refused what it sent, and the operator tries again
// later; a replay that returns one with nothing refused misreports what
// happened, and the run names it as an error the relay should not return.
// (When replay errors ended the run, a mutant that returns its commit's
// nil as an error was caught that way; tolerated, it went unseen until
// this check: tried.)
func TestAReplayThatMisreportsIsNamed(t *testing.T) {
	v := variant.Outbox()
	v.Name = "misreporting-replay"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return misreportingReplay{variant.AdaptRelay(r)}, nil
	}
	cfg := sim.DefaultConfig(v, threeOrders(), 1)
	cfg.Faults = []sim.Fault{{Kind: sim.FaultRejected, Target: broker.Target{AggregateID: "o-1", Sequence: 1}}}
	cfg.Operations = []sim.Operation{{Kind: sim.OpFix}} // no outage: nothing is refused during the replay
	res := run(t, cfg)
	if len(res.Unhandled) == 0 || !strings.Contains(res.Unhandled[0], "the operator's replay, with nothing refused: replay: timed out") {
		t.Errorf("unhandled %q, want the replay's error named", res.Unhandled)
	}
	cfg.Operations = []sim.Operation{{Kind: sim.OpFix, Outage: time.Minute}}
	cfg.Variant = variant.Outbox()
	if res := run(t, cfg); len(res.Unhandled) > 0 || res.Outcome != variant.OK {
		t.Errorf("the reference, its replay meeting an outage: %s, unhandled %q", res.Outcome, res.Unhandled)
	}
}
