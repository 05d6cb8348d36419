package scenarios_test

import (
	"testing"
	"time"

	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// TestEveryCellsReplayPlaysTheCell: every failure the matrix prints names
// the command that replays it; that command must play the cell's run and
// end as the cell did. A relay that is never woken for a FAILED message
// waiting out its backoff is LATE at publish-timeout-stored and
// publish-timeout-dropped; their replays played the stories of the same
// names (o-1 alone), which ended STUCK, before the stories were renamed
// (tried).
func TestEveryCellsReplayPlaysTheCell(t *testing.T) {
	v := wakeIgnoresFailed()
	m := scenarios.Matrix()
	late := 0
	for _, p := range m.Points {
		cell, err := m.RunCell(v, p)
		if err != nil {
			t.Fatal(err)
		}
		ce := cell.Counterexample
		if ce == nil {
			continue
		}
		if cell.Outcome == variant.Late && (p.ID == "publish-timeout-stored" || p.ID == "publish-timeout-dropped") {
			late++
		}
		cfg, err := scenarios.Config(*ce, v)
		if err != nil {
			t.Fatalf("%s: the replay's run %q: %v", p.ID, ce.Name(), err)
		}
		res, err := sim.Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != cell.Outcome {
			t.Errorf("%s: the cell is %s, its replay %q ends %s", p.ID, cell.Outcome, ce.Command("labrun"), res.Outcome)
		}
	}
	if late != 2 {
		t.Errorf("%s is LATE at %d of publish-timeout-stored and publish-timeout-dropped, want both: the test no longer shows the replays of these rows", v.Name, late)
	}
}

// wakeIgnoresFailed is the reference relay whose NextWake forgets the
// FAILED messages waiting out their backoff: nothing wakes the relay for
// them, and they wait until something else does.
func wakeIgnoresFailed() variant.Variant {
	v := variant.Outbox()
	v.Name = "wake-ignores-failed"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return failedNoWake{variant.AdaptRelay(r), env}, nil
	}
	return v
}

type failedNoWake struct {
	*variant.RelayAdapter
	env variant.Env
}

func (r failedNoWake) NextWake() (time.Time, bool) {
	var next time.Time
	found := false
	seen := map[string]bool{}
	r.env.OrderDB.ScanIndex(outbox.Table, outbox.IndexUnsent, func(_ string, v any) bool {
		m := v.(outbox.Message)
		if seen[m.Event.AggregateID] || m.Status == outbox.Failed {
			seen[m.Event.AggregateID] = true
			return true
		}
		seen[m.Event.AggregateID] = true
		if at, ok := m.ClaimableAt(); ok && (!found || at.Before(next)) {
			next, found = at, true
		}
		return true
	})
	return next, found
}
