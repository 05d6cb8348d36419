package grade_test

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/effect/effecttest"
	"outboxlab/inbox"
	"outboxlab/internal/longtest"
	"outboxlab/lab/grade"
	"outboxlab/lab/verdict"
	"outboxlab/mistakes"
	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// recorder is a test that keeps what Grade reports instead of failing.
type recorder struct {
	testing.TB
	errors, logs []string
	fatal        string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Log(args ...any)   { r.logs = append(r.logs, fmt.Sprint(args...)) }
func (r *recorder) Name() string      { return "TestMine" }
func (r *recorder) Helper()           {}
func (r *recorder) Fatal(args ...any) { r.fatal = fmt.Sprint(args...); panic(r) }
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	panic(r)
}

// gradeWith grades v as grade.Grade does with the flags set, and returns
// what a learner reads. (It sets flags: the tests that call it do not run
// in parallel.)
func gradeWith(t *testing.T, v variant.Variant, opts grade.Options, flags map[string]string) *recorder {
	t.Helper()
	for name, value := range flags {
		old := flag.Lookup(name).Value.String()
		if err := flag.Set(name, value); err != nil {
			t.Fatal(err)
		}
		defer flag.Set(name, old)
	}
	r := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != nil && p != r {
				panic(p)
			}
		}()
		grade.Grade(r, v, opts)
	}()
	return r
}

// swallowing is a learner's relay: the reference relay behind a broker
// client that reports every failed publish as a success ("the broker is
// reliable"). It claims to be correct.
func swallowing() variant.Variant {
	v := variant.Outbox()
	v.Name = "swallowing-relay"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := outbox.NewRelay(outbox.DefaultConfig(env.Owner), outbox.Deps{
			DB: env.OrderDB, Broker: swallow{env.Broker}, Gate: env.Gate, Clock: env.DBClock, Rand: env.Rand})
		if err != nil {
			return nil, err
		}
		return variant.AdaptRelay(r), nil
	}
	return v
}

type swallow struct{ to broker.Publisher }

func (s swallow) Publish(e broker.Envelope) error {
	_ = s.to.Publish(e) // the mistake: an error is a success
	return nil
}

// TestGradingPrintsOneFindingPerCause: the learner reads one finding per
// cause, each with its headline, its first run, a hint and the command
// that replays it, in lines of at most 100 columns; the replay shows the
// same outcome again.
func TestGradingPrintsOneFindingPerCause(t *testing.T) {
	hint := grade.Hint{EN: "send it again until the broker confirmed it", DE: "sende sie erneut, bis der Broker sie bestätigt"}
	r := gradeWith(t, swallowing(), grade.Options{Hints: map[variant.Outcome]grade.Hint{variant.Lost: hint}}, map[string]string{"lab.depth": "quick", "lab.lang": "en"})
	if len(r.errors) != 1 {
		t.Fatalf("%d findings, want one (LOST):\n%s", len(r.errors), strings.Join(r.errors, "\n"))
	}
	got := r.errors[0]
	for _, want := range []string{
		"LOST, a committed (or acknowledged) change has no effect downstream, in 6 runs: matrix at",
		"first at broker-outage: LOST o-1#1: committed, but billing never applied it",
		"hint: send it again until the broker confirmed it",
		"replay: go test ./lab/grade -run '^TestMine$' -lab.replay=broker-outage",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if len([]rune(l)) > 100 {
			t.Errorf("a line of %d columns: %q", len([]rune(l)), l)
		}
	}
	if err := grade.Replay(t, swallowing(), scenarios.MustParseRun("broker-outage")); err == nil || !strings.HasPrefix(err.Error(), "LOST, declared OK") {
		t.Errorf("replay: %v, want LOST again", err)
	}
}

// TestAPassingGradeSaysSoUnderV: a variant that passes is told so, in one
// line, in the test's log (go test -v prints it).
func TestAPassingGradeSaysSoUnderV(t *testing.T) {
	for l, want := range map[string]string{"en": "graded 131 runs at depth quick: OK", "de": "131 Läufe bewertet, Tiefe quick: OK"} {
		r := gradeWith(t, variant.Outbox(), grade.Options{}, map[string]string{"lab.depth": "quick", "lab.lang": l})
		if len(r.errors) > 0 || len(r.logs) != 1 || r.logs[0] != want {
			t.Errorf("%s: errors %q, log %q; want the log %q", l, r.errors, r.logs, want)
		}
	}
}

// TestAOneRelayGradeSaysNoRunHadTwoRelays: a learner's variant that
// supports one relay is told, beside its OK, that no run had two: the
// same words as labrun grade's.
func TestAOneRelayGradeSaysNoRunHadTwoRelays(t *testing.T) {
	v := variant.Outbox()
	v.Name, v.MaxRelays = "one-relay", 1
	for l, want := range map[string]string{
		"en": "graded 63 runs at depth quick: OK; no run had two relays: the variant supports one (MaxRelays 1)",
		"de": "63 Läufe bewertet, Tiefe quick: OK; kein Lauf hatte zwei Relays: die Variante unterstützt eines (MaxRelays 1)",
	} {
		r := gradeWith(t, v, grade.Options{}, map[string]string{"lab.depth": "quick", "lab.lang": l})
		if len(r.errors) > 0 || len(r.logs) != 1 || r.logs[0] != want {
			t.Errorf("%s: errors %q, log %q; want the log %q", l, r.errors, r.logs, want)
		}
	}
}

// TestAFailingOneRelayGradeSaysNoRunHadTwoRelays: a failing grade of a
// variant that supports one relay says it too, as labrun grade's header
// does (it said it only when the grade passed).
func TestAFailingOneRelayGradeSaysNoRunHadTwoRelays(t *testing.T) {
	v := mistakes.MarkBeforeSend()
	v.Name, v.Expect, v.MaxRelays = "mark-before-send-one-relay", nil, 1
	r := gradeWith(t, v, grade.Options{}, map[string]string{"lab.depth": "quick", "lab.lang": "en"})
	want := "no run had two relays: the variant supports one (MaxRelays 1)"
	if len(r.errors) == 0 || !slices.Contains(r.logs, want) {
		t.Errorf("errors %q, log %q; want errors and the log %q", r.errors, r.logs, want)
	}
}

// forgetful is a learner's billing: the reference consumer behind a broker
// client that drops every Nack, so a delivery whose commit failed is
// neither acknowledged nor handed back. It claims to be correct.
func forgetful() variant.Variant {
	v := variant.Outbox()
	v.Name = "forgetful-billing"
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		return inbox.NewConsumer(inbox.DefaultConfig(env.Owner, variant.Subscription),
			inbox.Deps{DB: env.BillingDB, Broker: dropsNacks{env.Broker}, Gate: env.Gate, Clock: env.Clock, Effect: billing.ApplyEffect})
	}
	return v
}

type dropsNacks struct{ *broker.Broker }

func (dropsNacks) Nack(string, uint64) error { return nil }

// TestGradingABillingThatKeepsAFailedDelivery: the failure sweep finds a
// failed commit at consumer.commit LOST, and its replay shows it again.
func TestGradingABillingThatKeepsAFailedDelivery(t *testing.T) {
	longtest.Only(t, "long_verdict", "TestGradingAMatrixCellWithAnUnhandledError and sim's TestAConsumerThatKeepsAFailedDeliveryIsCaught")
	t.Parallel()
	v, err := verdict.Grade(forgetful(), verdict.Options{Depth: verdict.Course})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range v.Findings {
		if f.Stage != verdict.StageFailureSweep || !strings.HasPrefix(f.Run.Name(), "commit-failure:consumer.commit@") {
			continue
		}
		if f.Cause != verdict.CauseOutcome || f.Outcome != variant.Lost {
			t.Errorf("%+v, want LOST", f)
		}
		if err := grade.Replay(t, forgetful(), f.Run); err == nil || !strings.HasPrefix(err.Error(), "LOST, declared OK") {
			t.Errorf("replay of %s: %v, want LOST again", f.Run.TestFlags(), err)
		}
		return
	}
	t.Fatalf("no failed commit at consumer.commit among %+v", v.Findings)
}

func TestAReplayOfAFailedCommitNamesWhatIsValid(t *testing.T) {
	for _, name := range []string{"commit-failure:relay.send@1", "commit-failure:relay.claim", "commit-failure:relay.claim@0"} {
		_, err := grade.RunOf(name, 0, false)
		if err == nil || !strings.Contains(err.Error(), "want commit-failure:BOUNDARY@K, e.g. commit-failure:relay.claim@2 (boundaries: service.commit,") || !strings.HasPrefix(err.Error(), "-lab.replay="+name) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// quietRelay is a learner's relay loop around the reference relay that
// logs a failed commit and goes on: its step answers nil for
// sim.ErrCommitFailed. It claims to be correct.
func quietRelay() variant.Variant {
	v := variant.Outbox()
	v.Name = "quiet-relay"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return swallows{variant.AdaptRelay(r)}, nil
	}
	return v
}

type swallows struct{ variant.Relay }

func (r swallows) Step() (bool, error) {
	did, err := r.Relay.Step()
	if errors.Is(err, sim.ErrCommitFailed) {
		return did, nil
	}
	return did, err
}

// TestGradingARelayThatSwallowsAFailedCommit: every outcome stays OK (the
// claim or mark that failed is done again after the lease), so only the
// missing error tells (and a claim it then held for nothing, LATE); the
// grade says so first, with the lab's hint, and its replay fails the same
// way where the reference's passes.
func TestGradingARelayThatSwallowsAFailedCommit(t *testing.T) {
	longtest.Only(t, "long_verdict", "TestGradingPrintsOneFindingPerCause and sim's TestARelayThatSwallowsAFailedCommitIsCaught")
	r := gradeWith(t, quietRelay(), grade.Options{}, map[string]string{"lab.lang": "en"})
	if len(r.errors) == 0 {
		t.Fatal("a relay that swallows failed commits passed")
	}
	for _, want := range []string{
		"a failed commit that never came back as an error, in 264 runs: failure sweep 264",
		"first when commit relay.claim@1 fails: the failed commit never came back",
		"hint: return the error of a commit that failed",
		"-lab.replay=commit-failure:relay.claim@1",
	} {
		if !strings.Contains(r.errors[0], want) {
			t.Errorf("no %q in:\n%s", want, r.errors[0])
		}
	}
	run := scenarios.MustParseRun("commit-failure:relay.claim@1")
	if err := grade.Replay(t, quietRelay(), run); err == nil || !strings.Contains(err.Error(), "never came back as an error") {
		t.Errorf("replay: %v, want the unreported failure again", err)
	}
	if err := grade.Replay(t, variant.Outbox(), run); err != nil {
		t.Errorf("the reference: %v", err)
	}
}

// conflictBlind is the reference relay behind a database driver that
// reports a lost race (a write conflict) as any other error: the relay
// hands it to its caller.
func conflictBlind() variant.Variant {
	v := variant.Outbox()
	v.Name = "conflict-blind"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		env.Gate = effecttest.HidesConflicts{Gate: env.Gate}
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return variant.AdaptRelay(r), nil
	}
	return v
}

// TestAReplayNamesAnUnhandledError: a replay of the failure sweep's run
// with two relays shows the lost race the relay returned as an error, and
// fails, as the sweep did.
func TestAReplayNamesAnUnhandledError(t *testing.T) {
	run := scenarios.MustParseRun("commit-failure:consumer.commit@1")
	run.Relays = 2
	err := grade.Replay(t, conflictBlind(), run)
	if err == nil || !strings.Contains(err.Error(), "outbox: claim: driver: serialization failure") || !strings.Contains(err.Error(), "an error the process should have handled itself") {
		t.Fatalf("replay: %v, want the unhandled claim conflict", err)
	}
	if err := grade.Replay(t, variant.Outbox(), run); err != nil {
		t.Fatalf("the reference: %v", err)
	}
}

// TestGradingAMatrixCellWithAnUnhandledError: a relay that takes a lost
// race for an error keeps every outcome of the matrix as declared, and
// fails cells all the same: the finding names the error, and its run
// replays it.
func TestGradingAMatrixCellWithAnUnhandledError(t *testing.T) {
	t.Parallel()
	v, err := verdict.Grade(conflictBlind(), verdict.Options{Depth: verdict.Quick})
	if err != nil {
		t.Fatal(err)
	}
	var f *verdict.Finding
	for i := range v.Findings {
		if v.Findings[i].Point == "mark-conflict" && v.Findings[i].Cause == verdict.CauseUnhandled {
			f = &v.Findings[i]
		}
	}
	if f == nil {
		t.Fatalf("no unhandled error at mark-conflict among %+v", v.Findings)
	}
	if !strings.HasPrefix(f.Detail.EN, "relay-1: outbox: claim: driver: serialization failure") || f.Run.TestFlags() != "-lab.replay=mark-conflict" {
		t.Fatalf("%q (%s), want the refused claim named, with its replay", f.Detail, f.Run.TestFlags())
	}
	if err := grade.Replay(t, conflictBlind(), f.Run); err == nil || !strings.Contains(err.Error(), "driver: serialization failure") {
		t.Errorf("replay: %v, want the unhandled error again", err)
	}
}

// TestAHintFollowsTheCause: a hint of PointHints wins where the finding
// was first found at its row, or in an exploration whose shrunk schedule
// has a fault of its kind; elsewhere the outcome's hint stands.
func TestAHintFollowsTheCause(t *testing.T) {
	hints := map[string]grade.Hint{"clock-skew": {EN: "whose clock?"}}
	for _, c := range []struct {
		f    verdict.Finding
		want bool
	}{
		{verdict.Finding{Stage: verdict.StageMatrix, Point: "clock-skew"}, true},
		{verdict.Finding{Stage: verdict.StageExplore, Run: sim.RunID{Explore: true, Faults: []sim.FaultKind{sim.FaultOutage, sim.FaultClockSkew}}}, true},
		{verdict.Finding{Stage: verdict.StageMatrix, Point: "relay.after-claim"}, false},
		{verdict.Finding{Stage: verdict.StageExplore, Run: sim.RunID{Explore: true, Faults: []sim.FaultKind{sim.FaultOutage}}}, false},
	} {
		if _, ok := grade.PointHint(hints, c.f); ok != c.want {
			t.Errorf("%+v: the row's hint %v, want %v", c.f, ok, c.want)
		}
	}
}

// TestAReplayThatCannotBeMadeFails: a replay command is the one way a
// learner sees a finding again, so what it cannot play is an error, never
// a green test: a crash whose occurrence the run never reaches (@99 for
// @1: it would pass as a crash survived), a negative relay count, and
// -lab.relays or -lab.poll without -lab.replay (they were ignored, and the
// whole grading ran green in their place).
func TestAReplayThatCannotBeMadeFails(t *testing.T) {
	err := grade.Replay(t, variant.Outbox(), scenarios.MustParseRun("relay.after-send@99"))
	if err == nil || !strings.Contains(err.Error(), "the planned crash relay.after-send@99 never fired") {
		t.Errorf("relay.after-send@99: %v, want the crash that never fired named", err)
	}
	if err := grade.Replay(t, variant.Outbox(), scenarios.MustParseRun("relay.after-send@1")); err != nil {
		t.Errorf("relay.after-send@1 of the reference: %v", err)
	}
	for _, c := range []struct {
		flags map[string]string
		want  string
	}{
		{map[string]string{"lab.replay": "relay.after-send@1", "lab.relays": "-3"}, "-lab.relays=-3: want 1 or more"},
		{map[string]string{"lab.relays": "2"}, "add -lab.replay=RUN"},
		{map[string]string{"lab.poll": "true"}, "add -lab.replay=RUN"},
		{map[string]string{"lab.replay": "explore:300:1", "lab.relays": "2"}, "leave out -lab.relays and -lab.poll"},
	} {
		r := gradeWith(t, variant.Outbox(), grade.Options{}, c.flags)
		if !strings.Contains(r.fatal, c.want) {
			t.Errorf("%v: fatal %q, want it to say %q", c.flags, r.fatal, c.want)
		}
	}
}
