package sim_test

import (
	"fmt"
	"strings"
	"testing"

	"outboxlab/alternatives/cdc"
	"outboxlab/lab/check"
	"outboxlab/lab/variant"
	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/sim"
)

// TestACDCRelayThatGivesUpTooSoonIsCaught: the cdc relay keeps its dead
// letters in a table of its own and shows them through its port
// (variant.DeadLetterKeeper); the checker reads them as it reads the
// outbox's, so that a CDC relay that gives a message up during a ten
// minute outage, after two attempts, is GAVE_UP as the polling relay would
// be. (Without the port, the replay after the run put the message
// through, and the cell was OK: tried.)
func TestACDCRelayThatGivesUpTooSoonIsCaught(t *testing.T) {
	v := variant.CDC()
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		cfg := outbox.DefaultConfig(env.Owner)
		cfg.MaxAttempts = 2
		return variant.CDCRelay{Relay: &cdc.Relay{DB: env.OrderDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Owner: env.Owner, Config: cfg}}, nil
	}
	p, err := scenarios.FindPoint(string(sim.FaultOutage))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		v    variant.Variant
		want check.Outcome
	}{{"cdc giving up after 2 attempts", v, check.GaveUp}, {"cdc", variant.CDC(), check.OK}} {
		cfg := scenarios.Matrix().Config(tc.v)
		p.Apply(&cfg)
		res, err := sim.Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != tc.want {
			t.Errorf("%s at broker-outage: %s %v, want %s", tc.name, res.Outcome, res.Violations, tc.want)
		}
		if tc.want == check.GaveUp && !strings.Contains(fmt.Sprint(res.Violations), "the CDC relay's dead-letter table") {
			t.Errorf("%s: %v, want the dead letter named where it is", tc.name, res.Violations)
		}
	}
}
