package sim_test

import (
	"strings"
	"testing"
	"time"

	"outboxlab/broker"
	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/store"
	"outboxlab/variant"
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
			found = found || (viol.Outcome == variant.Stuck && strings.Contains(viol.Detail.EN, c.want))
		}
		if !found {
			t.Errorf("publish=%v: %s %v, want STUCK saying %q", c.publish, res.Outcome, res.Violations, c.want)
		}
	}
}

// heartbeating is the reference relay that commits a heartbeat after
// every step and says it did something: it never settles, and every step
// is a commit a failure sweep would plan a failed commit at.
type heartbeating struct {
	variant.Relay
	env variant.Env
}

func (h heartbeating) Step() (bool, error) {
	if _, err := h.Relay.Step(); err != nil {
		return true, err
	}
	tx := h.env.OrderDB.Begin(h.env.Owner)
	defer tx.Rollback()
	return true, h.env.Gate.Cross(outbox.BoundaryMark, tx.Commit)
}

func (h heartbeating) NextWake() (time.Time, bool) { return h.env.Clock.Now(), true } // always due

// TestARunThatNeverSettlesCostsOneStepBudget: a relay that never settles
// ends its run when its first phase spent its steps (here its whole
// budget, Config.StepBudget), as STUCK, without a
// quiesce that would spin as long; and the failure sweep plans no failed
// commit in a row whose run never settles (it planned one at each of the
// thousands of heartbeats: the examiner's c-poison-forever ran for more
// than 887 s at depth course). The matrix's cell says STUCK for the row.
func TestARunThatNeverSettlesCostsOneStepBudget(t *testing.T) {
	v := variant.Outbox()
	v.Name = "heartbeating"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return heartbeating{variant.AdaptRelay(r), env}, nil
	}
	m := scenarios.Matrix()
	cfg := m.Config(v)
	cfg.Trace, cfg.StepBudget = true, 500
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != variant.Stuck || !strings.Contains(res.Busy.EN, "500 steps in the run") {
		t.Errorf("%s, busy %q; want STUCK after 500 steps", res.Outcome, res.Busy)
	}
	for _, e := range res.Trace {
		if e.Kind == sim.EventPhase && e.Action == "quiesce" {
			t.Errorf("a quiesce after a run phase that used up its steps: %v", e)
		}
	}
	sw, err := m.FailureSweep(v)
	if err != nil {
		t.Fatal(err)
	}
	if bases := 2 * (1 + len(m.FailureRows)); sw.Runs > bases {
		t.Errorf("the failure sweep made %d runs, want at most %d (one per row and relay count)", sw.Runs, bases)
	}
}
