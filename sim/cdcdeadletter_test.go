package sim_test

import (
	"fmt"
	"strings"
	"testing"

	"outboxlab/alternatives/cdc"
	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// TestACDCRelayThatGivesUpTooSoonIsCaught: the cdc relay keeps its dead
// letters in a table of its own and shows them through its port
// (variant.DeadLetterKeeper); the checker reads them as it reads the
// outbox's, so that a CDC relay that gives a message up during a ten
// minute outage, after two attempts, is GAVE_UP as the polling relay would
// be. (Without the port, the replay after the run put the message
// through, and the cell was OK: tried.)
func TestACDCRelayThatGivesUpTooSoonIsCaught(t *testing.T) {
	v := cdc.Variant()
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		cfg := outbox.DefaultConfig(env.Owner)
		cfg.MaxAttempts = 2
		return cdc.LabRelay{Relay: &cdc.Relay{DB: env.OrderDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Owner: env.Owner, Config: cfg}}, nil
	}
	p, err := scenarios.FindPoint(string(sim.FaultOutage))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		v    variant.Variant
		want variant.Outcome
	}{{"cdc giving up after 2 attempts", v, variant.GaveUp}, {"cdc", cdc.Variant(), variant.OK}} {
		cfg := scenarios.Matrix().Config(tc.v)
		p.Apply(&cfg)
		res, err := sim.Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != tc.want {
			t.Errorf("%s at broker-outage: %s %v, want %s", tc.name, res.Outcome, res.Violations, tc.want)
		}
		if tc.want == variant.GaveUp && !strings.Contains(fmt.Sprint(res.Violations), "the CDC relay's dead-letter table") {
			t.Errorf("%s: %v, want the dead letter named where it is", tc.name, res.Violations)
		}
	}
}

// silentPort is the CDC connector whose dead-letter port reports nothing.
type silentPort struct{ cdc.LabRelay }

func (silentPort) DeadLetters() []variant.DeadLetter { return nil }

// TestAPortThatHidesADeadLetterIsCaught: the lab counts a relay's dead
// letters from the facts it owns (a message a relay tried, the broker
// refused and never stored, of a committed change, that the outbox does
// not hold and nobody tries any more) and cross-checks the relay's port
// against them. The CDC relay that gives up after two attempts with a
// port that reports nothing was OK (the operator's replay put the
// message through); it is GAVE_UP, and its port's silence is STUCK.
// Billing's port is cross-checked the same way against the messages it
// acknowledged: a consumer that parks a corrupted message where its port
// does not look is STUCK.
func TestAPortThatHidesADeadLetterIsCaught(t *testing.T) {
	v := cdc.Variant()
	v.Name = "cdc-silent-port"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		cfg := outbox.DefaultConfig(env.Owner)
		cfg.MaxAttempts = 2
		return silentPort{cdc.LabRelay{Relay: &cdc.Relay{DB: env.OrderDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Owner: env.Owner, Config: cfg}}}, nil
	}
	p, err := scenarios.FindPoint(string(sim.FaultOutage))
	if err != nil {
		t.Fatal(err)
	}
	cfg := scenarios.Matrix().Config(v)
	p.Apply(&cfg)
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprint(res.Violations)
	for _, want := range []string{
		"GAVE_UP o-1#1: message e-6aaa407bc219b7cd was dead-lettered in the relay, by the facts (no port reports it)",
		"STUCK o-1#1: message e-6aaa407bc219b7cd: tried 2 time(s) by relay-1, refused, never stored by the broker, and nobody tries it any more: it was given up, but neither the outbox nor the relay's dead-letter port (variant.DeadLetterKeeper) shows it",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no violation says %q:\n%v", want, res.Violations)
		}
	}
	if res.Outcome != variant.Stuck {
		t.Errorf("outcome %s, want STUCK", res.Outcome)
	}
}
