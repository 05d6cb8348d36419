package sim_test

import (
	"errors"
	"testing"

	"outboxlab/effect"
	"outboxlab/internal/longtest"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/store"
	"outboxlab/variant"
)

// retriesCommit is billing's gate in a consumer that retries a failed
// commit at once: the same transaction (its effect and its inbox row)
// committed again, in the same delivery, up to tries times in all. The
// lab's failed commit committed nothing, so the retry is harmless.
type retriesCommit struct {
	effect.Gate
	tries int
}

func (g retriesCommit) Cross(b effect.Boundary, do func() error) error {
	err := g.Gate.Cross(b, do)
	for try := 1; try < g.tries && b.Kind == effect.Commit && retryable(err); try++ {
		err = g.Gate.Cross(b, do)
	}
	return err
}

// retryable is an error a commit may be tried again after: not a crash,
// and not a refusal the same transaction would meet again.
func retryable(err error) bool {
	return err != nil && !errors.Is(err, effect.ErrCrashed) && !errors.Is(err, store.ErrDuplicateKey) && !errors.Is(err, store.ErrConflict)
}

// swallowsCommit is billing's gate in a consumer that logs a failed commit
// and goes on as if it had committed: it acknowledges a delivery whose
// effect and inbox row the database never got.
type swallowsCommit struct{ effect.Gate }

func (g swallowsCommit) Cross(b effect.Boundary, do func() error) error {
	if err := g.Gate.Cross(b, do); b.Kind != effect.Commit || !retryable(err) {
		return err
	}
	return nil // "logged"
}

// consumerWithGate is the reference with billing's gate wrapped.
func consumerWithGate(name string, wrap func(effect.Gate) effect.Gate) variant.Variant {
	v := variant.Outbox()
	v.Name = name
	reference := v.NewConsumer
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		env.Gate = wrap(env.Gate)
		return reference(env)
	}
	return v
}

// TestAConsumerThatRetriesAFailedCommitInItsStepIsNotFlagged: billing that
// commits its transaction again after a failed commit, in the same
// delivery, handled the failure: it was flagged "a failed commit never
// came back as an error" as if it had swallowed it. A retry that commits
// accounts for the failure before it (and a retry that fails too for its
// own, when the error comes back at last); a consumer that swallows the
// failure and acknowledges is still flagged, and LOST.
func TestAConsumerThatRetriesAFailedCommitInItsStepIsNotFlagged(t *testing.T) {
	retrying := consumerWithGate("retries-commit", func(g effect.Gate) effect.Gate { return retriesCommit{g, 2} })
	swallowing := consumerWithGate("swallows-commit", func(g effect.Gate) effect.Gate { return swallowsCommit{g} })
	for _, c := range []struct {
		v       variant.Variant
		failure sim.Fault
		outcome variant.Outcome
		flagged bool
	}{
		{retrying, sim.Fault{Kind: sim.FaultCommitFailure, Point: "consumer.commit", Occurrence: 1}, variant.OK, false},
		// Two failures in one delivery (the retry fails too, and the
		// error comes back), then one the retry of the next delivery
		// commits.
		{retrying, sim.Fault{Kind: sim.FaultCommitFailure, Point: "consumer.commit", Occurrence: 1, Burst: 3}, variant.OK, false},
		{swallowing, sim.Fault{Kind: sim.FaultCommitFailure, Point: "consumer.commit", Occurrence: 1}, variant.Lost, true},
		{variant.Outbox(), sim.Fault{Kind: sim.FaultCommitFailure, Point: "consumer.commit", Occurrence: 1, Burst: 3}, variant.OK, false},
	} {
		cfg := scenarios.Matrix().Config(c.v)
		cfg.Faults = append(cfg.Faults, c.failure)
		res, err := sim.Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		name := c.v.Name + " at " + sim.RunID{Failure: &c.failure}.Name()
		if res.CommitFailures != max(c.failure.Burst, 1) {
			t.Fatalf("%s: %d commits failed, want %d", name, res.CommitFailures, max(c.failure.Burst, 1))
		}
		flagged := res.CommitFailures > res.Situations[sim.FailureReported]
		if res.Outcome != c.outcome || flagged != c.flagged {
			t.Errorf("%s: %s %v, %d of %d failed commits handled; want %s, flagged %v", name, res.Outcome, res.Violations,
				res.Situations[sim.FailureReported], res.CommitFailures, c.outcome, c.flagged)
		}
	}
	if !longtest.Long(t, "long_caught") {
		return
	}
	// Every commit of the workload failed once, and three times in a
	// row, under every failure row: the retrying consumer is OK throughout.
	if bad, _ := commitFailures(t, retrying); len(bad) > 0 {
		t.Errorf("retries-commit: %d run(s) not OK, first: %s", len(bad), bad[0])
	}
}
