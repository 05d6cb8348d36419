package sim_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"outboxlab/alternatives/cdc"
	"outboxlab/alternatives/listen"
	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/effect/effecttest"
	"outboxlab/inbox"
	"outboxlab/internal/longtest"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// commitFailures runs v's failure sweep and returns what was not OK, and
// how many runs it took.
func commitFailures(t *testing.T, v variant.Variant) (bad []string, runs int) {
	t.Helper()
	sw, err := scenarios.Matrix().FailureSweep(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range sw.Failures {
		what := fmt.Sprintf("%s, never reached %v", f.Outcome, f.Missing)
		if len(f.Violations) > 0 {
			what = f.Violations[0].String()
			if len(f.Missing) > 0 {
				what += fmt.Sprintf("; never reached %v", f.Missing)
			}
		}
		bad = append(bad, fmt.Sprintf("%s with %d relay(s): %s", sim.RunID{Row: f.Row, Failure: f.Failure}.Name(), f.Relays, what))
	}
	return bad, sw.Runs
}

// TestCorrectVariantsSurviveAFailedCommit: a commit that fails (a lost
// connection: nothing committed, the process gets an error) at any commit
// boundary of the correct variants leaves every invariant intact. The
// service tells its client the command failed; the relay's claim or mark
// is simply not there and is done again; billing hands the delivery back
// and gets it again.
func TestCorrectVariantsSurviveAFailedCommit(t *testing.T) {
	for _, v := range []variant.Variant{variant.Outbox(), listen.Variant(), cdc.Variant()} {
		bad, runs := commitFailures(t, v)
		if len(bad) > 0 {
			t.Errorf("%s: %d run(s) not OK, first: %s", v.Name, len(bad), bad[0])
		}
		// At least billing's commit and the service's (or its listener's)
		// of each of the six commands fail once, each in a run of its own.
		if runs <= 2*6 {
			t.Errorf("%s: the failure sweep took %d runs, want one per commit of the workload", v.Name, runs)
		}
	}
}

// keepsFailedDeliveries drops a consumer's Nack: billing that does not hand
// back a delivery whose commit failed, as the reference did before this
// fault existed.
type keepsFailedDeliveries struct{ *broker.Broker }

func (keepsFailedDeliveries) Nack(string, uint64) error { return nil }

// TestAConsumerThatKeepsAFailedDeliveryIsCaught: billing whose commit
// failed and that neither acknowledges nor hands back the delivery holds
// it for ever; its effect never happens: LOST.
func TestAConsumerThatKeepsAFailedDeliveryIsCaught(t *testing.T) {
	longtest.Only(t, "long_caught", "TestARelayThatSwallowsAFailedCommitIsCaught")
	v := variant.Outbox()
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		return inbox.NewConsumer(inbox.DefaultConfig(env.Owner, variant.Subscription),
			inbox.Deps{DB: env.BillingDB, Broker: keepsFailedDeliveries{env.Broker}, Gate: env.Gate, Clock: env.Clock, Effect: billing.ApplyEffect})
	}
	bad, _ := commitFailures(t, v)
	if len(bad) == 0 || !strings.Contains(bad[0], "consumer.commit") || !strings.Contains(bad[0], "LOST") {
		t.Fatalf("a consumer that keeps a failed delivery: %v, want LOST at consumer.commit", bad)
	}
}

// swallowsErrors is a service that answers every command with success
// unless its process died: one that logs a failed commit and says OK.
type swallowsErrors struct{ variant.Service }

func (s swallowsErrors) Handle(c orders.Command) error {
	if err := s.Service.Handle(c); errors.Is(err, effect.ErrCrashed) {
		return err
	}
	return nil
}

// TestAServiceThatSaysOKOnAFailedCommitIsCaught: its client was told the
// command succeeded, and the database holds nothing of it: LOST, by the
// count of commands answered with success against the committed versions.
func TestAServiceThatSaysOKOnAFailedCommitIsCaught(t *testing.T) {
	longtest.Only(t, "long_caught", "TestARelayThatSwallowsAFailedCommitIsCaught")
	v := variant.Outbox()
	reference := v.NewService
	v.NewService = func(env variant.Env) (variant.Service, error) {
		s, err := reference(env)
		return swallowsErrors{s}, err
	}
	bad, _ := commitFailures(t, v)
	if len(bad) == 0 || !strings.Contains(bad[0], "service.commit") || !strings.Contains(bad[0], "answered") {
		t.Fatalf("a service that says OK on a failed commit: %v, want LOST at service.commit", bad)
	}
}

// eagerCleanup is a relay whose retention cleanup deletes every SENT
// message, however young: it forgot the age.
type eagerCleanup struct {
	*variant.RelayAdapter
	env variant.Env
}

func (r eagerCleanup) Cleanup() (int, error) {
	tx := r.env.OrderDB.Begin(r.env.Owner)
	defer tx.Rollback()
	n := 0
	tx.Scan(outbox.Table, func(key string, v any) bool {
		if v.(outbox.Message).Status == outbox.Sent {
			tx.Delete(outbox.Table, key)
			n++
		}
		return true
	})
	if n == 0 {
		return 0, nil
	}
	return n, r.env.Gate.Cross(outbox.BoundaryCleanup, tx.Commit)
}

// TestACleanupThatForgetsTheAgeIsCaught: the operator runs the cleanup
// first while every message is young; one that deletes SENT
// messages at once destroys the evidence before its time: UNSAFE.
func TestACleanupThatForgetsTheAgeIsCaught(t *testing.T) {
	v := variant.Outbox()
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return eagerCleanup{variant.AdaptRelay(r), env}, nil
	}
	res, err := sim.Run(scenarios.Matrix().Config(v))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != variant.Unsafe || len(res.Unsafe) == 0 || !strings.Contains(res.Unsafe[0].EN, "after it was SENT: retention keeps a SENT message 168h0m0s") {
		t.Fatalf("%s %v, want UNSAFE: a SENT message deleted before its retention ran out", res.Outcome, res.Unsafe)
	}
	ref, err := sim.Run(scenarios.Matrix().Config(variant.Outbox()))
	if err != nil || ref.Outcome != variant.OK {
		t.Fatalf("the reference: %v %v", ref.Outcome, err)
	}
}

// quietRelay is the reference relay in a loop that logs a failed commit
// and goes on: its step and its recovery answer nil for ErrCommitFailed.
type quietRelay struct{ variant.Relay }

func (r quietRelay) Step() (bool, error) { return quiet(r.Relay.Step()) }

func (r quietRelay) Recover() error {
	_, err := quiet(true, r.Relay.Recover())
	return err
}

// quiet drops a step's error when it is a failed commit.
func quiet(did bool, err error) (bool, error) {
	if errors.Is(err, sim.ErrCommitFailed) {
		return did, nil
	}
	return did, err
}

// TestARelayThatSwallowsAFailedCommitIsCaught: the reference relay's data
// survive a failed claim or mark (the claim is not there, the message goes
// again after its lease), so only the error tells anyone the database is
// gone; a relay that swallows it runs on blind. The failure sweep expects
// every failed commit reported (FailureReported) and names each one that
// was not.
func TestARelayThatSwallowsAFailedCommitIsCaught(t *testing.T) {
	v := variant.Outbox()
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return quietRelay{variant.AdaptRelay(r)}, nil
	}
	bad, _ := commitFailures(t, v)
	// A swallowed mark also leaves its claim held after a step that
	// ended without an error: LATE beside the unreported failure.
	wantOnlyUnreported(t, bad, true, "commit-failure:relay.claim@1", "commit-failure:relay.mark@1",
		"broker-outage+commit-failure:relay.mark@1",    // the record of a failed publish
		"relay-restart+commit-failure:relay.recover@1") // the release of a restarted relay's claims
}

// wantOnlyUnreported checks that every failure of a failure sweep is an
// unreported failed commit, and that there is one at each of the runs
// named by want. With late, a run may also be LATE for a claim held after
// a step (the claim a swallowed mark did not release), and nothing else.
func wantOnlyUnreported(t *testing.T, bad []string, late bool, want ...string) {
	t.Helper()
	var points []string
	for _, b := range bad {
		_, violation, _ := strings.Cut(b, ": ")
		heldClaim := late && strings.HasPrefix(violation, "LATE") && strings.Contains(violation, "ended a step")
		if !strings.Contains(b, "never reached [failure-reported]") || !strings.HasPrefix(violation, "OK") && !heldClaim {
			t.Errorf("%s, want only unreported failures", b)
		}
		points = append(points, strings.Fields(b)[0])
	}
	for _, w := range want {
		if !slices.Contains(points, w) {
			t.Errorf("no unreported failure at %s among %v", w, points)
		}
	}
}

// quietConsumer is the reference billing consumer in a loop that logs a
// failed commit and goes on.
type quietConsumer struct{ variant.Consumer }

func (c quietConsumer) Step() (bool, error) { return quiet(c.Consumer.Step()) }

// TestAConsumerThatSwallowsAFailedCommitIsCaught: the reference hands the
// delivery back before it returns the error, so the data survive; only the
// error is missing, at billing's commit and, under the poison row, at the
// count of a delivery it cannot process.
func TestAConsumerThatSwallowsAFailedCommitIsCaught(t *testing.T) {
	longtest.Only(t, "long_caught", "TestARelayThatSwallowsAFailedCommitIsCaught")
	v := variant.Outbox()
	reference := v.NewConsumer
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		c, err := reference(env)
		return quietConsumer{c}, err
	}
	bad, _ := commitFailures(t, v)
	wantOnlyUnreported(t, bad, false, "commit-failure:consumer.commit@1", "poison+commit-failure:consumer.count-failure@1")
}

// keepsEverything is a relay whose retention cleanup deletes nothing: it
// never commits its deletes.
type keepsEverything struct{ *variant.RelayAdapter }

func (keepsEverything) Cleanup() (int, error) { return 0, nil }

// TestACleanupThatDeletesNothingIsCaught: no outcome names an outbox that
// grows for ever, so the rejected row, whose retention cleanup runs with a
// dead letter among SENT messages, declares cleaned-up: a cleanup that
// deletes nothing leaves its cell short of it, as TestCrashMatrix reports
// for the reference.
func TestACleanupThatDeletesNothingIsCaught(t *testing.T) {
	v := variant.Outbox()
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return keepsEverything{variant.AdaptRelay(r)}, nil
	}
	p, err := scenarios.FindPoint(string(sim.FaultRejected))
	if err != nil {
		t.Fatal(err)
	}
	missing := func(v variant.Variant) []sim.Situation {
		cell, err := scenarios.Matrix().RunCell(v, p)
		if err != nil {
			t.Fatal(err)
		}
		if cell.Outcome != variant.OK {
			t.Errorf("%s: %s, want OK", v.Name, cell.Outcome)
		}
		return cell.Missing()
	}
	if got := missing(v); !slices.Equal(got, []sim.Situation{sim.CleanedUp}) {
		t.Errorf("a cleanup that deletes nothing: missing %v, want [%s]", got, sim.CleanedUp)
	}
	if got := missing(variant.Outbox()); len(got) > 0 {
		t.Errorf("the reference: missing %v", got)
	}
}

// TestARelayThatTakesALostRaceForAnErrorIsCaught: its data stay intact
// (the claim was not committed, another relay holds the rows), but Relay.Run
// stops at a step's error: with two relays, one would stop at its first
// lost claim, or at a stale mark the database refused. The failure sweep
// names the error it should have handled.
func TestARelayThatTakesALostRaceForAnErrorIsCaught(t *testing.T) {
	longtest.Only(t, "long_caught", "TestARelayThatSwallowsAFailedCommitIsCaught")
	v := variant.Outbox()
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		env.Gate = effecttest.HidesConflicts{Gate: env.Gate}
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return variant.AdaptRelay(r), nil
	}
	sw, err := scenarios.Matrix().FailureSweep(v)
	if err != nil {
		t.Fatal(err)
	}
	claim, mark, failure := false, false, false
	for _, f := range sw.Failures {
		if f.Relays == 1 || f.Outcome != variant.OK || len(f.Missing) > 0 {
			t.Errorf("%s, %d relay(s): %s, missing %v; want only two relays, OK, with an unhandled error", sim.RunID{Row: f.Row, Failure: f.Failure}.Name(), f.Relays, f.Outcome, f.Missing)
		}
		for _, u := range f.Unhandled {
			claim = claim || strings.Contains(u, "outbox: claim: driver: serialization failure")
			// The mark-conflict row: relay-1's mark, held 40 s, refused.
			mark = mark || f.Row == "mark-conflict" && strings.Contains(u, "relay-1: outbox: mark sent") && strings.Contains(u, "driver: serialization failure")
			// The failure-conflict row: relay-1's record of a failed send.
			failure = failure || f.Row == "failure-conflict" && strings.Contains(u, "relay-1: outbox: mark failed") && strings.Contains(u, "driver: serialization failure")
		}
	}
	if !claim || !mark || !failure {
		t.Fatalf("among %d failures: an unhandled conflict at the claim %v, at the mark %v, at the record of a failure %v; want all three", len(sw.Failures), claim, mark, failure)
	}
	ref, err := scenarios.Matrix().FailureSweep(variant.Outbox())
	if err != nil || len(ref.Failures) > 0 {
		t.Fatalf("the reference: %v, %d failures", err, len(ref.Failures))
	}
}

// TestAFailureRowMustBeAFaultRow: the failure sweep runs under fault rows
// only; a crash row or an unknown name is an error naming it.
func TestAFailureRowMustBeAFaultRow(t *testing.T) {
	for _, row := range []string{"relay.after-send", "nope"} {
		m := scenarios.Matrix()
		m.FailureRows = []string{row}
		_, err := m.FailureSweep(variant.Outbox())
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q is not a fault row of the matrix", row)) {
			t.Errorf("FailureRows %q: %v, want an error naming it", row, err)
		}
	}
}

// rewritesDeadLetters is a relay whose retention cleanup, after the
// reference's, rewrites every dead letter it keeps (a note added to its
// last error, its creation dated now: as rewritten, no dead letter is
// old enough to count as kept, as it was before the cleanup one is) in a
// commit of its own.
type rewritesDeadLetters struct {
	*variant.RelayAdapter
	clock variant.Clock
}

func (r rewritesDeadLetters) Cleanup() (int, error) {
	n, err := r.RelayAdapter.Cleanup()
	if err != nil {
		return n, err
	}
	tx := r.DB.Begin(r.Config().Owner)
	tx.Scan(outbox.Table, func(key string, v any) bool {
		if m := v.(outbox.Message); m.Status == outbox.DeadLetter {
			m.LastError += " (kept by the cleanup)"
			m.CreatedAt = r.clock.Now()
			tx.Put(outbox.Table, key, m)
		}
		return true
	})
	return n, tx.Commit()
}

// TestACleanupThatRewritesWhatItKeepsStillCountsIt: the situations a
// cleanup's kept rows give are judged by the rows as they were before it;
// a row the cleanup itself wrote, and kept, counts as it was (the rejected
// row's dead letter: dead-letter-kept), whatever else the rewrite breaks.
func TestACleanupThatRewritesWhatItKeepsStillCountsIt(t *testing.T) {
	cell := rejectedWithCleanup(t, func(r *variant.RelayAdapter, clock variant.Clock) variant.Relay {
		return rewritesDeadLetters{r, clock}
	})
	if slices.Contains(cell.Missing(), sim.DeadLetterKept) {
		t.Errorf("a cleanup that rewrites the dead letters it keeps: missing %v, want %s reached", cell.Missing(), sim.DeadLetterKept)
	}
}

// deletesOldDeadLetters is a relay whose retention cleanup, after the
// reference's, deletes the dead letters older than the retention period
// in a commit of its own (the cleanup-by-age mistake, as an addition).
type deletesOldDeadLetters struct {
	*variant.RelayAdapter
	clock variant.Clock
}

func (r deletesOldDeadLetters) Cleanup() (int, error) {
	n, err := r.RelayAdapter.Cleanup()
	if err != nil {
		return n, err
	}
	old := r.clock.Now().Add(-outbox.DefaultConfig("").Retention)
	tx := r.DB.Begin(r.Config().Owner)
	tx.Scan(outbox.Table, func(key string, v any) bool {
		if m := v.(outbox.Message); m.Status == outbox.DeadLetter && !m.CreatedAt.After(old) {
			tx.Delete(outbox.Table, key)
			n++
		}
		return true
	})
	return n, tx.Commit()
}

// TestADeadLetterACleanupDeletedIsNotKept: a cleanup's kept rows are the
// rows still there after it; a dead letter old enough to count as kept
// that the cleanup deleted is not one (dead-letter-kept not reached),
// whatever the delete breaks.
func TestADeadLetterACleanupDeletedIsNotKept(t *testing.T) {
	cell := rejectedWithCleanup(t, func(r *variant.RelayAdapter, clock variant.Clock) variant.Relay {
		return deletesOldDeadLetters{r, clock}
	})
	if n := cell.Situations[sim.DeadLetterKept]; n > 0 {
		t.Errorf("a cleanup that deletes the old dead letters: %s reached %d time(s), want none", sim.DeadLetterKept, n)
	}
}

// rejectedWithCleanup runs the reference, its relay wrapped by wrap (a
// cleanup of its own beside the reference's), at the rejected row, where
// a dead letter is old enough to be kept.
func rejectedWithCleanup(t *testing.T, wrap func(*variant.RelayAdapter, variant.Clock) variant.Relay) sim.Cell {
	t.Helper()
	v := variant.Outbox()
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return wrap(variant.AdaptRelay(r), env.Clock), nil
	}
	p, err := scenarios.FindPoint(string(sim.FaultRejected))
	if err != nil {
		t.Fatal(err)
	}
	cell, err := scenarios.Matrix().RunCell(v, p)
	if err != nil {
		t.Fatal(err)
	}
	return cell
}
