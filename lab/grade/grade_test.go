package grade_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/effect/effecttest"
	"outboxlab/inbox"
	"outboxlab/lab/grade"
	"outboxlab/lab/variant"
	"outboxlab/outbox"
	"outboxlab/sim"
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

// forgetful is a learner's billing: the reference consumer behind a broker
// client that drops every Nack, so a delivery whose commit failed is
// neither acknowledged nor handed back (nor one it could not process: the
// matrix's poison row catches that side). It claims to be correct.
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

// TestGradingABillingThatKeepsAFailedDelivery: the failure sweep reports a
// failed commit at consumer.commit with the flags that replay it, and the
// replay shows the outcome again.
func TestGradingABillingThatKeepsAFailedDelivery(t *testing.T) {
	failures, err := grade.Report(forgetful())
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, f := range failures {
		lines = append(lines, f.Line)
		if !strings.Contains(f.Replay, "-lab.replay=commit-failure:consumer.commit@") {
			continue
		}
		if !strings.Contains(f.Line, "forgetful-billing when commit consumer.commit@") || f.Outcome.String() != "LOST" {
			t.Errorf("line %q, outcome %s", f.Line, f.Outcome)
		}
		name, relays := replayArgs(t, f.Replay)
		if err := grade.Replay(t, forgetful(), name, relays); err == nil || !strings.HasPrefix(err.Error(), "LOST, declared OK") {
			t.Errorf("replay of %q: %v, want LOST again", f.Line, err)
		}
		return
	}
	t.Fatalf("no failed commit at consumer.commit among:\n%s", strings.Join(lines, "\n"))
}

func TestAReplayOfAFailedCommitNamesWhatIsValid(t *testing.T) {
	for _, name := range []string{"commit-failure:relay.send@1", "commit-failure:relay.claim", "commit-failure:relay.claim@0"} {
		err := grade.Replay(t, variant.Outbox(), name, 0)
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
		return swallows{variant.RelayAdapter{Relay: r}}, err
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
// missing error tells; the grade says so and its replay fails the same way.
func TestGradingARelayThatSwallowsAFailedCommit(t *testing.T) {
	failures, err := grade.Report(quietRelay())
	if err != nil {
		t.Fatal(err)
	}
	if len(failures) == 0 {
		t.Fatal("a relay that swallows failed commits passed")
	}
	f := failures[0]
	if !strings.Contains(f.Line, "quiet-relay when commit relay.claim@1 fails") || !strings.Contains(f.Line, "never reached failure-reported") || f.Replay != "-lab.replay=commit-failure:relay.claim@1" {
		t.Fatalf("first failure %q (%s), want the unreported failed claim", f.Line, f.Replay)
	}
	name, relays := replayArgs(t, f.Replay)
	if err := grade.Replay(t, quietRelay(), name, relays); err == nil || !strings.Contains(err.Error(), "never came back as an error") {
		t.Errorf("replay of %q: %v, want the unreported failure again", f.Line, err)
	}
	if err := grade.Replay(t, variant.Outbox(), name, relays); err != nil {
		t.Errorf("the reference at %s: %v", name, err)
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
		return variant.RelayAdapter{Relay: r}, err
	}
	return v
}

// TestAReplayNamesAnUnhandledError: a replay of the failure sweep's
// run with two relays shows the lost race the relay returned as an error,
// and fails, as the sweep did.
func TestAReplayNamesAnUnhandledError(t *testing.T) {
	v := conflictBlind()
	err := grade.Replay(t, v, "commit-failure:consumer.commit@1", 2)
	if err == nil || !strings.Contains(err.Error(), "outbox: claim: driver: serialization failure") || !strings.Contains(err.Error(), "an error the process should have handled itself") {
		t.Fatalf("replay: %v, want the unhandled claim conflict", err)
	}
	if err := grade.Replay(t, variant.Outbox(), "commit-failure:consumer.commit@1", 2); err != nil {
		t.Fatalf("the reference: %v", err)
	}
}

// TestGradingAMatrixCellWithAnUnhandledError: a relay that takes a lost
// race for an error keeps every outcome of the matrix as declared, and
// fails cells all the same: the grader says the outcome is as declared,
// names the error, and replays the run that returned it.
func TestGradingAMatrixCellWithAnUnhandledError(t *testing.T) {
	v := conflictBlind()
	failures, err := grade.Report(v)
	if err != nil {
		t.Fatal(err)
	}
	var f *grade.Failure
	for i := range failures {
		if strings.HasPrefix(failures[i].Line, "conflict-blind at mark-conflict:") {
			f = &failures[i]
		}
	}
	if f == nil {
		t.Fatalf("no failure at mark-conflict among %d", len(failures))
	}
	if !strings.Contains(f.Line, "OK as declared, but relay-1: outbox: claim: driver: serialization failure") || !strings.Contains(f.Line, "an error the process should have handled itself") || f.Replay != "-lab.replay=mark-conflict" {
		t.Fatalf("%q (%s), want the refused claim named, with its replay", f.Line, f.Replay)
	}
	name, relays := replayArgs(t, f.Replay)
	if err := grade.Replay(t, v, name, relays); err == nil || !strings.Contains(err.Error(), "driver: serialization failure") {
		t.Errorf("replay of %q: %v, want the unhandled error again", f.Line, err)
	}
}
