package cli

import (
	"strings"
	"testing"

	"outboxlab/lab/check"
	"outboxlab/lab/variant"
	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/sim"
)

// TestTheRelaysSettingsChangeTheRunAndItsJudge: labrun's relay flags
// change what the reference relay does and what the run is judged by, and
// the replay repeats them: twelve attempts outlast chapter 001's 20-minute
// outage where ten give up; a 30 s backoff cap spends ten attempts within
// ten minutes (GAVE_UP), and with thirty attempts shortens claim-4711's
// tail to seconds; two days of retention are below the chapters' three
// (UNSAFE).
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
	undeclared.Policy.Relay = check.RelayPolicy{} // the course's
	for _, c := range []struct {
		v    variant.Variant
		want check.Outcome
	}{{tuned, check.OK}, {undeclared, check.Storm}} {
		res, err := sim.Run(sc.Configure(c.v, sc.Seed))
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != c.want {
			t.Errorf("policy %+v: %s, want %s: %v", c.v.Policy.Relay, res.Outcome, c.want, res.Violations)
		}
	}
}
