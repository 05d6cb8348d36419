package verdict

import (
	"strings"
	"testing"

	"outboxlab/lang"
	"outboxlab/scenarios"
	"outboxlab/sim"
)

// TestEveryRunOfEveryStageReads: a finding's run reads as words for every
// stage, also where the run is no injected failure: the failure sweep's
// first run ("happy-path", a variant that cannot even run without a
// failure) made RunText panic with a slice out of range (the property
// found it, at -rapid.seed=14632078122975739065 on a slip that cannot be
// built).
func TestEveryRunOfEveryStageReads(t *testing.T) {
	for _, tc := range []struct {
		f    Finding
		want string
	}{
		{Finding{Stage: StageFailureSweep, Run: named("happy-path", 0)}, "in happy-path, before any commit fails"},
		{Finding{Stage: StageFailureSweep, Run: named("commit-failure:relay.mark@1", 0)}, "when commit relay.mark@1 fails"},
		{Finding{Stage: StageFailureSweep, Point: "poison", Run: named("poison+commit-failure:consumer.count-failure@1", 2)},
			"when commit consumer.count-failure@1 fails under poison, 2 relays"},
		{Finding{Stage: StageSweep, Run: named("happy-path", 0)}, "without a crash"},
		{Finding{Stage: StageSweep, Run: named("relay.after-send@1+relay.after-mark@1", 0)}, "after a crash at relay.after-send@1, then at relay.after-mark@1"},
	} {
		got := tc.f.RunText()
		if en := got.In(lang.English); !strings.Contains(en, tc.want) {
			t.Errorf("%+v: %q, want it to contain %q", tc.f.Run, en, tc.want)
		}
		if got.DE == "" {
			t.Errorf("%+v: no German", tc.f.Run)
		}
	}
}

// TestHeadlinesSayThePointOnce: a matrix run named as its row says the row
// once ("at broker-outage", not "at broker-outage (broker-outage)"), and
// a cause's headline sets its count of runs off with a comma.
func TestHeadlinesSayThePointOnce(t *testing.T) {
	for _, tc := range []struct {
		f    Finding
		want string
	}{
		{Finding{Stage: StageMatrix, Point: "broker-outage", Run: named("broker-outage", 0)}, "at broker-outage"},
		{Finding{Stage: StageMatrix, Point: "stall", Run: named("stall", 2)}, "at stall (2 relays)"},
		{Finding{Stage: StageMatrix, Point: "relay.after-send", Run: named("relay.after-send@2", 0)}, "at relay.after-send (relay.after-send@2)"},
	} {
		if got := tc.f.RunText().In(lang.English); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.f.Run, got, tc.want)
		}
	}
	g := Group{Cause: CauseUnreported, Findings: []Finding{{Stage: StageFailureSweep, Run: named("commit-failure:relay.mark@1", 0)}}}
	for l, want := range map[lang.Lang]string{lang.English: "never came back as an error, in 1 run", lang.German: "nie als Fehler zurückkam, in 1 Lauf"} {
		if got := g.Headline().In(l); !strings.Contains(got, want) {
			t.Errorf("headline in %s: %q, want it to contain %q", l, got, want)
		}
	}
}

// named is the run a name names, with relays relays.
func named(name string, relays int) sim.RunID {
	run := scenarios.MustParseRun(name)
	run.Relays = relays
	return run
}
