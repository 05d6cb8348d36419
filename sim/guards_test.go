package sim_test

import (
	"strings"
	"testing"
	"time"

	"outboxlab/broker"
	"outboxlab/lab/check"
	"outboxlab/lab/variant"
	"outboxlab/outbox"
	"outboxlab/sim"
	"outboxlab/store"
)

// spinning is a relay a learner might write by mistake: it publishes every
// unsent message on every step and never records anything (publish), or it
// says it is due and does nothing (idle).
type spinning struct {
	env     variant.Env
	publish bool
}

func (s *spinning) Recover() error { return nil }

func (s *spinning) Step() (bool, error) {
	if !s.publish {
		return false, nil
	}
	did := false
	for _, m := range store.Values[outbox.Message](s.env.OrderDB, outbox.Table) {
		if err := s.env.Gate.Cross(outbox.BoundarySend, func() error {
			return s.env.Broker.Publish(broker.Envelope{ID: m.ID, Event: m.Event})
		}); err != nil {
			return did, err
		}
		did = true
	}
	return did, nil
}

func (s *spinning) NextWake() (time.Time, bool)     { return s.env.Clock.Now(), true } // always due
func (s *spinning) ReplayDeadLetters() (int, error) { return 0, nil }

// TestARelayThatSpinsEndsTheRunQuickly: a relay that publishes without end,
// or says it is due and never does anything, ends its run within a
// second of wall time as STUCK, saying why, instead of running for
// minutes (both used to take a million steps a phase).
func TestARelayThatSpinsEndsTheRunQuickly(t *testing.T) {
	for _, c := range []struct {
		publish bool
		want    string
	}{
		{true, "a publish storm"},
		{false, "without doing anything"},
	} {
		v := variant.Outbox()
		v.Name = "spinning"
		v.NewRelay = func(env variant.Env) (variant.Relay, error) { return &spinning{env: env, publish: c.publish}, nil }
		start := time.Now()
		res, err := sim.Run(sim.DefaultConfig(v, onePlace(), 1))
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("publish=%v: the run took %v", c.publish, took)
		}
		found := false
		for _, viol := range res.Violations {
			found = found || (viol.Outcome == check.Stuck && strings.Contains(viol.Detail.EN, c.want))
		}
		if !found {
			t.Errorf("publish=%v: %s %v, want STUCK saying %q", c.publish, res.Outcome, res.Violations, c.want)
		}
	}
}
