package metrics_test

import (
	"testing"
	"time"

	"outboxlab/internal/metrics"
	"outboxlab/scenarios"
	"outboxlab/sim"
)

// TestTheMissingEffectsAreCountedAsTheyHappen: the story send-directly,
// measured: sent without an outbox, the four orders placed during the
// outage stay without their invoice to the end; with the outbox they
// wait during the outage (five at 00:03:00, o-7's just placed among
// them) and none is missing at the end. Billing's commits count when they
// happened, not all at the start.
func TestTheMissingEffectsAreCountedAsTheyHappen(t *testing.T) {
	for _, c := range []struct {
		variant      string
		during, last int
	}{{"dual-write", 5, 4}, {"outbox", 5, 0}} {
		res := playStory(t, "send-directly", c.variant)
		samples := metrics.Series(res.OrderLog, res.BillingLog, sim.Epoch, res.WorkEnded, 30*time.Second, nil)
		during, last := samples[6], samples[len(samples)-1]
		if during.At != 3*time.Minute || during.Missing != c.during || last.Missing != c.last {
			t.Errorf("%s: %d missing at %s, %d at the end; want %d at 3m0s, %d at the end", c.variant, during.Missing, during.At, last.Missing, c.during, c.last)
		}
	}
}

// playStory runs the named story with the named variant at the story's
// seed.
func playStory(t *testing.T, story, variantName string) sim.Result {
	t.Helper()
	sc, err := scenarios.FindScenario(story)
	if err != nil {
		t.Fatal(err)
	}
	v, err := scenarios.FindVariant(variantName)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(sc.Configure(v, sc.Seed))
	if err != nil {
		t.Fatal(err)
	}
	return res
}
