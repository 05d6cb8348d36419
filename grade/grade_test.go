package grade_test

import (
	"strconv"
	"strings"
	"testing"

	"outboxlab/broker"
	"outboxlab/grade"
	"outboxlab/outbox"
	"outboxlab/variant"
)

// swallowing is a learner's relay: the reference relay behind a broker
// client that reports every failed publish as a success ("the broker is
// reliable"). It claims to be correct.
func swallowing() variant.Variant {
	v := variant.Outbox()
	v.Name = "swallowing-relay"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := outbox.NewRelay(outbox.DefaultConfig(env.Owner), outbox.Deps{
			DB: env.OrderDB, Broker: swallow{env.Broker}, Gate: env.Gate, Clock: env.DBClock, Rand: env.Rand})
		return variant.RelayAdapter{Relay: r}, err
	}
	return v
}

type swallow struct{ to broker.Publisher }

func (s swallow) Publish(e broker.Envelope) error {
	_ = s.to.Publish(e) // the mistake: an error is a success
	return nil
}

// TestGradingAFaultyRelay: one call grades the learner's relay; every
// failure is a line with the flags that replay it, and each replay shows
// the same outcome again.
func TestGradingAFaultyRelay(t *testing.T) {
	failures, err := grade.Report(swallowing())
	if err != nil {
		t.Fatal(err)
	}
	want := "swallowing-relay at broker-outage: LOST, but swallowing-relay declares OK (LOST o-1#1: committed, but billing never applied it)"
	found := false
	for _, f := range failures {
		found = found || f.Line == want
	}
	if !found {
		var lines []string
		for _, f := range failures {
			lines = append(lines, f.Line)
		}
		t.Fatalf("no line %q among:\n%s", want, strings.Join(lines, "\n"))
	}
	for _, f := range failures {
		if f.Replay == "" {
			t.Errorf("%q has no replay", f.Line)
			continue
		}
		name, relays := replayArgs(t, f.Replay)
		t.Run(name, func(t *testing.T) {
			err := grade.Replay(t, swallowing(), name, relays)
			if err == nil || !strings.HasPrefix(err.Error(), f.Outcome.String()+", declared OK") {
				t.Errorf("replay of %q: %v, want %s again", f.Line, err, f.Outcome)
			}
		})
	}
}

// replayArgs reads "-lab.replay=X -lab.relays=N".
func replayArgs(t *testing.T, flags string) (string, int) {
	t.Helper()
	name, relays := "", 0
	for _, f := range strings.Fields(flags) {
		switch {
		case strings.HasPrefix(f, "-lab.replay="):
			name = strings.TrimPrefix(f, "-lab.replay=")
		case strings.HasPrefix(f, "-lab.relays="):
			n, err := strconv.Atoi(strings.TrimPrefix(f, "-lab.relays="))
			if err != nil {
				t.Fatal(err)
			}
			relays = n
		}
	}
	return name, relays
}
