package sim_test

import (
	"strings"
	"testing"
	"time"

	"outboxlab/domain"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/sim"
	"outboxlab/variant"
)

// TestWhatARunCannotHaveIsNamed: a crash or a kill of one of several
// billing instances, resends out of order, and a history out of range are
// configuration errors that say why.
func TestWhatARunCannotHaveIsNamed(t *testing.T) {
	base := sim.DefaultConfig(variant.Outbox(), nil, 1)
	cases := []struct {
		change func(*sim.Config)
		want   string
	}{
		{func(c *sim.Config) {
			c.Consumers = 2
			c.Crashes = []sim.Crash{{Point: "consumer.after-commit", Occurrence: 1}}
		}, "would take back the others' deliveries too"},
		{func(c *sim.Config) {
			c.Consumers = 2
			c.Faults = []sim.Fault{{Kind: sim.FaultKill, Process: "billing-1", From: time.Second}}
		}, "kill billing-1 with Consumers = 2"},
		{func(c *sim.Config) {
			c.Resends = []sim.Resend{{At: time.Hour}, {At: time.Minute}}
		}, "is earlier than the one before it"},
		{func(c *sim.Config) { c.History = sim.MaxHistory + 1 }, "History = 1000001, want 0 to 1000000"},
	}
	for _, c := range cases {
		cfg := base
		c.change(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate: %v, want an error saying %q", err, c.want)
		}
	}
}

// TestHistoryIsSentAndUntold: a run's history is in the outbox as SENT
// messages from the year before, before the first event, and the trace
// does not tell it.
func TestHistoryIsSentAndUntold(t *testing.T) {
	cfg := sim.DefaultConfig(variant.Outbox(), []sim.Command{{Command: orders.Command{Kind: orders.Place, OrderID: "o-1", Amount: domain.MustMoney("1.00", "EUR")}}}, 1)
	cfg.History = 50
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	first := res.OrderLog[0]
	if first.Owner != "history" || len(first.Changes) != 50 || first.Changes[0].Value.(outbox.Message).Status != outbox.Sent {
		t.Fatalf("the first commit is %s's with %d change(s), want the history's 50 SENT messages", first.Owner, len(first.Changes))
	}
	for _, e := range res.Trace {
		for _, c := range e.Changes {
			if strings.Contains(c.EN, "h-00000") {
				t.Fatalf("the trace tells the history: %s", c)
			}
		}
	}
	if res.Outcome.String() != "OK" {
		t.Fatalf("%s %v", res.Outcome, res.Violations)
	}
}
