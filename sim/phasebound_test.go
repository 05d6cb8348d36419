package sim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"outboxlab/domain"
	"outboxlab/orders"
	"outboxlab/sim"
	"outboxlab/variant"
)

// TestTheStepBoundGrowsWithTheRelays: the lab's bound on a phase's steps
// must never stop a run a story asked for: 100 relays and 700 orders a
// millisecond apart ended STUCK ("19000 steps without quiescence") when
// the bound grew with the commands alone; it grows with the processes too.
func TestTheStepBoundGrowsWithTheRelays(t *testing.T) {
	t.Parallel()
	var workload []sim.Command
	for i := 1; i <= 700; i++ {
		workload = append(workload, sim.Command{At: time.Duration(i-1) * time.Millisecond,
			Command: orders.Command{Kind: orders.Place, OrderID: fmt.Sprintf("o-%d", i), Amount: domain.MustMoney("10.00", "EUR")}})
	}
	cfg := sim.DefaultConfig(variant.Outbox(), workload, 1)
	cfg.Relays = 100
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != variant.OK {
		t.Fatalf("%s: %v", res.Outcome, res.Violations)
	}
}

// spinner is a relay that says it did something at every step and does
// nothing: it spins, and the lab's bound stops it.
type spinner struct{ variant.Relay }

func (spinner) Step() (bool, error) { return true, nil }

func (spinner) NextWake() (time.Time, bool) { return time.Time{}, true }

// TestASpinningRunNamesTheLabsBound: where the bound does run out, the
// verdict says it is the lab's bound, and what it is made of.
func TestASpinningRunNamesTheLabsBound(t *testing.T) {
	v := variant.Outbox()
	relay := v.NewRelay
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := relay(env)
		return spinner{r}, err
	}
	res, err := sim.Run(sim.DefaultConfig(v, nil, 1))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != variant.Stuck || !strings.Contains(res.Violations[0].Detail.EN, "the lab's bound of 12000 steps a phase ran out before the run was quiet") {
		t.Fatalf("%s: %v, want STUCK naming the lab's bound", res.Outcome, res.Violations)
	}
}
