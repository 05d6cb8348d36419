package sim_test

import (
	"testing"

	"outboxlab/lab/labtest"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// polled is the lab's matrix with every relay driven as its production
// loop drives it (sim.Config.Poll).
func polled() sim.Matrix { return scenarios.Matrix().Polled() }

// TestTheReferenceHoldsWhenPolledAsRunDoes: woken every poll instead of
// when its NextWake says, the reference relay keeps every row as
// declared: Step keeps its pause on its own.
func TestTheReferenceHoldsWhenPolledAsRunDoes(t *testing.T) {
	m := polled()
	for _, p := range m.Points {
		c, err := m.RunCell(variant.Outbox(), p)
		if err != nil {
			t.Fatal(err)
		}
		if !c.Matches() || len(c.Missing()) > 0 {
			t.Errorf("%s: %s, declared %s, never reached %v: %v", p.ID, c.Outcome, c.Expected, c.Missing(), c.Violations)
		}
	}
}

// TestOnlyPollingCatchesAPauseKeptInNextWake: a relay whose pause lives
// only in NextWake keeps it while the simulator wakes it by NextWake, and
// hammers the broker when polled as its production loop polls it.
func TestOnlyPollingCatchesAPauseKeptInNextWake(t *testing.T) {
	p, err := scenarios.FindPoint("outage-backlog")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m    sim.Matrix
		want variant.Outcome
	}{{scenarios.Matrix(), variant.OK}, {polled(), variant.Storm}} {
		cell, err := c.m.RunCell(labtest.PausesOnlyInNextWake(), p)
		if err != nil {
			t.Fatal(err)
		}
		if cell.Outcome != c.want {
			t.Errorf("polled %v: %s, want %s: %v", c.m.Config(variant.Outbox()).Poll, cell.Outcome, c.want, cell.Violations)
		}
	}
}

// TestTheLearnerRelayIsOKWithoutItsSlip: the learner's relay the broken
// variants are made of (labtest.LearnerRelay) holds, woken by NextWake and polled,
// where its slips are caught: each of those is one change from a relay
// the lab grades OK.
func TestTheLearnerRelayIsOKWithoutItsSlip(t *testing.T) {
	v := labtest.Learner("learner-relay", func(*labtest.LearnerRelay) {})
	for _, id := range []string{"broker-outage", "outage-backlog", "rejected", "stall"} {
		p, err := scenarios.FindPoint(id)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []sim.Matrix{scenarios.Matrix(), polled()} {
			cell, err := m.RunCell(v, p)
			if err != nil {
				t.Fatal(err)
			}
			if cell.Outcome != variant.OK {
				t.Errorf("%s, polled %v: %s, want OK: %v", id, m.Config(v).Poll, cell.Outcome, cell.Violations)
			}
		}
	}
}
