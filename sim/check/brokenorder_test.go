package check_test

import (
	"strings"
	"testing"

	"outboxlab/alternatives/cdc"
	"outboxlab/lab/labtest"
	"outboxlab/mistakes"
	"outboxlab/variant"
)

// TestAnAggregatesOrderIsJudgedAtTheBroker: a relay must not publish an
// aggregate's later event before the first copy of an earlier one while
// the earlier one is still being tried (chapter 001; the real contract's
// rule 2). A relay without head-of-line blocking passed the simulator
// (billing parked the gap) and failed labrun-real verify: it is
// OUT_OF_ORDER here too, and the order-status view that trusts the
// broker's order names the outdated status it restored. CDC, which
// declares that it publishes past a dead letter (its log has no row to
// hold an aggregate back by), is OK at rejected; the same relay without
// the declaration is not.
func TestAnAggregatesOrderIsJudgedAtTheBroker(t *testing.T) {
	undeclared := cdc.Variant()
	undeclared.Name, undeclared.PublishesPastDeadLetters = "cdc-undeclared", false
	cases := []struct {
		name, point string
		v           variant.Variant
		want        variant.Outcome
		detail      string
	}{
		{"a relay without head-of-line blocking", "broker-outage", mistakes.ParallelWorkers(), variant.OutOfOrder,
			"OUT_OF_ORDER o-1#1: the order-status view, which keeps the last status it read as a shipping or search service does, shows o-1 ACCEPTED (from #1, read last) after it read #3 (ACCEPTED)"},
		{"the same at a stall", "stall", mistakes.ParallelWorkers(), variant.OutOfOrder,
			"before the first copy of #1"},
		{"cdc past a dead letter, declared", "rejected", cdc.Variant(), variant.OK, ""},
		{"cdc past a dead letter, undeclared", "rejected", undeclared, variant.OutOfOrder,
			"which was a dead letter then: the variant does not declare that it publishes past one (variant.Variant.PublishesPastDeadLetters)"},
		{"the reference", "stall", variant.Outbox(), variant.OK, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			outcome, lines := labtest.Cell(t, c.v, c.point)
			if outcome != c.want || !strings.Contains(lines, c.detail) {
				t.Errorf("%s at %s: %s, want %s with %q:\n%s", c.v.Name, c.point, outcome, c.want, c.detail, lines)
			}
		})
	}
}
