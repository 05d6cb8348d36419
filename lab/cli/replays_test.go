package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"outboxlab/outbox"
	"outboxlab/variant"
)

// hostClock draws "random" numbers from the host's clock.
type hostClock struct{}

func (hostClock) Float64() float64 { return float64(time.Now().UnixNano()%1_000_000) / 1_000_000 }

// TestAReplayThatDoesNotReproduceSaysSo: labrun scenario makes its run
// twice; a course's relay that jitters its backoff from the wall clock
// makes two runs of broker-outage that part, and labrun says so, where,
// and exits 1, in text and in JSON. The reference's run exits 0 and says
// nothing of it.
func TestAReplayThatDoesNotReproduceSaysSo(t *testing.T) {
	jittery := variant.Outbox()
	jittery.Name = "wall-clock-jitter"
	jittery.NewRelay = func(env variant.Env) (variant.Relay, error) {
		cfg := outbox.DefaultConfig(env.Owner)
		cfg.Jitter = 0.5
		r, err := outbox.NewRelay(cfg, outbox.Deps{DB: env.OrderDB, Broker: env.Broker, Gate: env.Gate, Clock: env.DBClock, Rand: hostClock{}})
		if err != nil {
			return nil, err
		}
		return variant.AdaptRelay(r), nil
	}
	lab := Lab{Command: "courselab", Variants: []variant.Variant{jittery}}
	for _, format := range []string{"text", "json"} {
		var out, errOut bytes.Buffer
		code := 0
		word, where := "NONDETERMINISTIC:", "first run:  00:00:00.036 relay-1   effect  relay.mark"
		if format == "json" {
			word, where = `"nondeterministic": {`, "they part at event 7 (00:00:00.036, relay-1, relay.mark)"
		}
		for i := 0; i < 3 && !strings.Contains(out.String(), word); i++ {
			out.Reset()
			code = lab.Run([]string{"scenario", "broker-outage", "--variant", jittery.Name, "--format", format}, &out, &errOut)
		}
		if code != exitMismatch || !strings.Contains(out.String(), word) || !strings.Contains(out.String(), where) {
			t.Errorf("--format %s: exit %d, want 1 with NONDETERMINISTIC at relay.mark:\n%s%s", format, code, out.String(), errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := lab.Run([]string{"scenario", "broker-outage"}, &out, &errOut); code != exitOK || strings.Contains(out.String(), "NONDETERMINISTIC") {
		t.Errorf("outbox: exit %d:\n%s%s", code, out.String(), errOut.String())
	}
}

// TestACourseVariantDeclaredAtNoRowIsBadInput: a course lab's variant that
// declares an outcome at a point the matrix lacks is refused by labrun
// grade with exit 2, naming the point (it was graded OK on the matrix
// alone: the declaration made it a variant that is not correct).
func TestACourseVariantDeclaredAtNoRowIsBadInput(t *testing.T) {
	mistyped := variant.Outbox()
	mistyped.Name = "mistyped"
	mistyped.Expect = map[string]variant.Outcome{"relay.after-sent": variant.Stuck}
	lab := Lab{Command: "courselab", Variants: []variant.Variant{mistyped}}
	var out, errOut bytes.Buffer
	code := lab.Run([]string{"grade", "--variant", "mistyped", "--depth", "quick"}, &out, &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), "declares an outcome at relay.after-sent, which is no row of the matrix") {
		t.Errorf("exit %d, want 2 naming relay.after-sent:\n%s%s", code, out.String(), errOut.String())
	}
}
