package sim_test

import (
	"strings"
	"testing"
	"time"

	"outboxlab/sim"
	"outboxlab/variant"
)

// TestAFreezePastTheHorizonIsRefused: a stall or a slow commit as long as
// the run's horizon would leave its process frozen when the phase ends,
// and the run would charge the variant with the lab's bound: the
// configuration is refused, saying so.
func TestAFreezePastTheHorizonIsRefused(t *testing.T) {
	for _, f := range []sim.Fault{
		{Kind: sim.FaultStall, Process: "relay-1", Point: "relay.before-send", For: 12 * time.Hour},
		{Kind: sim.FaultSlowCommit, Process: "service", For: 6 * time.Hour},
	} {
		cfg := sim.DefaultConfig(variant.Outbox(), nil, 1)
		cfg.Faults = []sim.Fault{f}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "runs past the run's horizon of 6h0m0s a phase (at most 5h59m59s)") {
			t.Errorf("%s for %s: %v, want the horizon named", f.Kind, f.For, err)
		}
	}
}
