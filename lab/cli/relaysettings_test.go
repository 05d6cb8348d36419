package cli

import (
	"strings"
	"testing"

	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// TestTheRelaysSettingsChangeTheRunAndItsJudge: labrun's relay flags
// change what the reference relay does and what the run is judged by, and
// the replay repeats them: twelve attempts outlast chapter 001's 20-minute
// outage where ten give up; a 30 s backoff cap spends ten attempts within
// ten minutes (GAVE_UP), and with thirty attempts shortens claim-4711's
// tail to seconds; two days of retention are below the chapters' three
// (UNSAFE); three attempts at the rejected message, which the operator's
// fix (made while the broker is down for a minute) gives up again and
// replays again, are three for each time the operator put it back, not
// a STORM (it was judged against one replay's budget before).
func TestTheRelaysSettingsChangeTheRunAndItsJudge(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want []string
		not  string
	}{
		{[]string{"scenario", "outage-20m"}, 0, []string{"DEAD_LETTER attempts=10"}, ""},
		{[]string{"scenario", "outage-20m", "--max-attempts", "12"}, 0,
			[]string{"Relay policy: 12 attempts", "00:23:38.201 relay-1   effect  relay.send", "Replay: go run ./cmd/labrun scenario outage-20m --variant outbox --seed 1 --max-attempts 12"}, "DEAD_LETTER"},
		{[]string{"scenario", "claim-4711", "--backoff-cap", "30s"}, 1, []string{"Outcome: GAVE_UP (expected OK)", "gives a message up after 10 attempts"}, ""},
		{[]string{"scenario", "claim-4711", "--backoff-cap", "30s", "--max-attempts", "30"}, 0,
			[]string{"00:10:00.925 relay-1   effect  relay.send", "Outcome: OK (expected OK)"}, "DEAD_LETTER"},
		{[]string{"scenario", "retention", "--retention", "48h"}, 1, []string{"Outcome: UNSAFE (expected OK)", "keeps a SENT message 48h"}, ""},
		{[]string{"scenario", "retention", "--retention", "72h"}, 0, []string{"Outcome: OK (expected OK)"}, ""},
		{[]string{"scenario", "rejected", "--max-attempts", "3"}, 0, []string{"Outcome: OK (expected OK)"}, "STORM"},
		{[]string{"scenario", "large-batch", "--variant", "outbox", "--batch", "10", "--format", "metrics"}, 0, []string{
			"messages a claim", "00:00:09.000      80        10", "--variant outbox --seed 1 --batch 10 --format metrics"}, "00:00:09.000       0        90"},
		{[]string{"scenario", "large-batch", "--variant", "outbox", "--format", "metrics"}, 0, []string{"00:00:09.000       0        90"}, "Relay policy"},
	}
	for _, c := range cases {
		code, stdout, stderr := runLabrun(c.args...)
		if code != c.code {
			t.Errorf("labrun %s: exit %d, want %d\n%s", strings.Join(c.args, " "), code, c.code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("labrun %s prints no %q", strings.Join(c.args, " "), w)
			}
		}
		if c.not != "" && strings.Contains(stdout, c.not) {
			t.Errorf("labrun %s prints %q", strings.Join(c.args, " "), c.not)
		}
	}
}

// TestTheJudgeFollowsTheChangedPolicy is the linkage failing: the relay
// with twelve attempts, judged by the course's ten, is STORM at chapter
// 001's outage; with its declared policy (WithRelayConfig) it is OK.
func TestTheJudgeFollowsTheChangedPolicy(t *testing.T) {
	sc, err := scenarios.FindScenario("outage-20m")
	if err != nil {
		t.Fatal(err)
	}
	tuned, err := variant.WithRelayConfig(variant.Outbox(), func(c *outbox.Config) { c.MaxAttempts = 12 })
	if err != nil {
		t.Fatal(err)
	}
	undeclared := tuned
	undeclared.Policy.Relay = variant.RelayPolicy{} // the course's
	for _, c := range []struct {
		v    variant.Variant
		want variant.Outcome
	}{{tuned, variant.OK}, {undeclared, variant.Storm}} {
		res, err := sim.Run(sc.Configure(c.v, sc.Seed))
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != c.want {
			t.Errorf("policy %+v: %s, want %s: %v", c.v.Policy.Relay, res.Outcome, c.want, res.Violations)
		}
	}
}

// TestTheMatrixTakesTheRelaysSettings: labrun matrix takes scenario's
// relay flags, through the same parser, and judges every cell by the
// changed policy: three attempts turn the outage rows GAVE_UP (exit 1),
// each replay repeating the flag; twelve keep every cell OK; a bad value,
// a variant with a relay of its own or a depth beyond the matrix exit 2
// naming what is valid.
func TestTheMatrixTakesTheRelaysSettings(t *testing.T) {
	cases := []struct {
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{[]string{"matrix", "--max-attempts", "3"}, 1, []string{
			"outbox: Relay policy: 3 attempts",
			"outbox at broker-outage: GAVE_UP (but the variant declares OK)",
			"gives a message up after 3 attempts within 6s of failures",
			"replay: go run ./cmd/labrun scenario broker-outage --variant outbox --seed 1 --max-attempts 3",
		}, ""},
		{[]string{"matrix", "--variant", "outbox", "--max-attempts", "12", "--backoff-cap", "2m"}, 0, []string{
			"Relay policy: 12 attempts, backoff 1s to 2m0s", "Every cell matches its variant's declaration."}, ""},
		{[]string{"matrix", "--max-attempts", "3", "--format", "json"}, 1, []string{
			`"replay": "go run ./cmd/labrun scenario broker-outage --variant outbox --seed 1 --max-attempts 3"`}, ""},
		{[]string{"matrix", "--max-attempts", "0"}, 2, nil, "not a whole number from 1 to 1000"},
		{[]string{"matrix", "--batch", "0"}, 2, nil, "--batch \"0\" is not a whole number from 1 to 10000"},
		{[]string{"matrix", "--batch", "10", "--variant", "outbox"}, 0, []string{"messages a claim", "Every cell matches"}, ""},
		{[]string{"matrix", "--pause-cap", "soon"}, 2, nil, "--pause-cap \"soon\" is not a positive duration"},
		{[]string{"matrix", "--variant", "dual-write", "--max-attempts", "3"}, 2, nil, "dual-write has a relay of its own (valid: outbox, outbox-delete-on-send, gap-fetch, gap-snapshot)"},
		{[]string{"matrix", "--depth", "course", "--max-attempts", "3"}, 2, nil, "valid: --depth quick, or no --depth"},
	}
	for _, c := range cases {
		code, stdout, stderr := runLabrun(c.args...)
		name := "labrun " + strings.Join(c.args, " ")
		if code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s", name, code, c.code, stderr)
		}
		for _, w := range c.stdout {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s prints no %q", name, w)
			}
		}
		if !strings.Contains(stderr, c.stderr) {
			t.Errorf("%s: stderr %q, want %q in it", name, stderr, c.stderr)
		}
	}
}
