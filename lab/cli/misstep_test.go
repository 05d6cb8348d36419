package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"outboxlab/effect"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// swallowsCrash is the reference relay in a loop that logs a crashed step
// and goes on as if it were alive.
type swallowsCrash struct{ variant.Relay }

func (r swallowsCrash) Step() (bool, error) {
	did, err := r.Relay.Step()
	if errors.Is(err, effect.ErrCrashed) {
		return did, nil
	}
	return did, err
}

// TestAMisstepsReplaySaysWhatFailedInItsOutcomeLine: the replay of a run
// whose outcome is OK but whose process went on after its crash exits 1;
// its Outcome line said "OK (expected OK)", and only the line after it
// named the cause. Now the Outcome line says what failed; a run without a
// misstep keeps "OK (expected OK)".
func TestAMisstepsReplaySaysWhatFailedInItsOutcomeLine(t *testing.T) {
	broken := variant.Outbox()
	broken.Name = "crash-swallowing-relay"
	broken.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return swallowsCrash{variant.AdaptRelay(r)}, nil
	}
	p, err := scenarios.FindPoint("relay.after-send")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v    variant.Variant
		want string
	}{
		{broken, "Outcome: OK, but a process went on after its crash (expected OK)"},
		{variant.Outbox(), "Outcome: OK (expected OK)"},
	} {
		cfg := scenarios.Matrix().Config(c.v)
		p.Apply(&cfg)
		cfg.Crashes = []sim.Crash{{Point: p.ID, Occurrence: 1}}
		res, err := sim.Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		writeScenarioText(&b, scenarios.Scenario{Name: "relay.after-send@1"}, scenarioRun{v: c.v, seed: 1}, variant.OK, res, nil, "replay", "")
		_, after, _ := strings.Cut(b.String(), "\nOutcome: ")
		if got, _, _ := strings.Cut("Outcome: "+after, "\n"); got != c.want {
			t.Errorf("%s: %q, want %q", c.v.Name, got, c.want)
		}
	}
}
