package sim_test

import (
	"strings"
	"testing"

	"outboxlab/sim"
	"outboxlab/variant"
)

// TestAStepBudgetEndsTheRunAsStuck: the happy path with a budget below
// its steps ends as STUCK, saying the budget was spent; with a budget
// above them it is OK as without one. A run that ignored the budget, or
// counted only one phase's steps against it, fails here.
func TestAStepBudgetEndsTheRunAsStuck(t *testing.T) {
	cfg := sim.DefaultConfig(variant.Outbox(), onePlace(), 1)
	cfg.StepBudget = 8
	res := run(t, cfg)
	if res.Outcome != variant.Stuck || len(res.Violations) == 0 || !strings.Contains(res.Violations[0].Detail.EN, "StepBudget") {
		t.Fatalf("a budget of 8 steps: %s %v, want STUCK naming the budget", res.Outcome, res.Violations)
	}
	cfg.StepBudget = 1000
	if res := run(t, cfg); res.Outcome != variant.OK {
		t.Fatalf("a budget of 1000 steps: %s %v, want OK", res.Outcome, res.Violations)
	}
	cfg.StepBudget = -1
	if _, err := sim.Run(cfg); err == nil || !strings.Contains(err.Error(), "StepBudget") {
		t.Fatalf("a budget of -1: %v, want an error naming StepBudget", err)
	}
}
