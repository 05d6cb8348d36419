package sim_test

import (
	"testing"
	"time"

	"outboxlab/domain"
	"outboxlab/orders"
	"outboxlab/sim"
	"outboxlab/variant"
)

func onePlace() []sim.Command {
	return []sim.Command{{At: 0, Command: orders.Command{Kind: orders.Place, OrderID: "o-1", Amount: domain.MustMoney("10.00", "EUR")}}}
}

func TestHappyPathTrace(t *testing.T) {
	res, err := sim.Run(sim.DefaultConfig(variant.Outbox(), onePlace(), 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Trace {
		t.Log(s)
	}
	t.Log(res.Outcome, res.Violations, res.Reached, res.Duration)
	_ = time.Second
}
