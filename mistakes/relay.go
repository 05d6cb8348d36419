package mistakes

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/outbox"
	"outboxlab/store"
	"outboxlab/variant"
)

// relay is the reference relay with the reference's own field names, so
// that a mistake's version of a reference method reads as the original with
// one change (go test ./mistakes -run OneChange -v prints each diff). It
// embeds the reference (DB, Broker, Gate, Clock, Rand and the methods a
// mistake keeps) and writes out Step, whose parts a mistake replaces:
// claim and recordSent are the reference's own unless a mistake sets them.
type relay struct {
	*variant.RelayAdapter
	cfg         outbox.Config
	failedSteps int
	pausedUntil time.Time
	claim       func() ([]outbox.Message, error)
	recordSent  func(outbox.Message) (lost bool, err error)
}

// newRelay builds the reference relay for env's process, with the default
// configuration changed by change (if not nil).
func newRelay(env variant.Env, change func(*outbox.Config)) (*relay, error) {
	ref, err := variant.ReferenceRelay(env, change)
	if err != nil {
		return nil, err
	}
	r := &relay{RelayAdapter: variant.AdaptRelay(ref), cfg: ref.Config(), claim: ref.ClaimDue}
	r.recordSent = r.recordSentFenced
	return r, nil
}

// configured is the course's relay configuration changed by change: what
// a mistake that changes it declares as its policy.
func configured(change func(*outbox.Config)) outbox.Config {
	cfg := outbox.DefaultConfig("relay")
	change(&cfg)
	return cfg
}

// Step implements variant.Relay with step.
func (r *relay) Step() (bool, error) {
	rep, err := r.step()
	return rep.Did(), err
}

// NextWake is variant.RelayAdapter.NextWake, with the pause step keeps
// here: the embedded adapter sees no pause, for its own Step does not run.
func (r *relay) NextWake() (time.Time, bool) {
	t, ok := r.RelayAdapter.NextWake()
	if ok && t.Before(r.pausedUntil) {
		t = r.pausedUntil
	}
	return t, ok
}

// step is outbox.Relay.Step, with the claim and the SENT mark the mistake's.
// DO NOT COPY: use outbox.Relay.
func (r *relay) step() (outbox.StepReport, error) {
	var rep outbox.StepReport
	if r.Clock.Now().Before(r.pausedUntil) {
		return rep, nil // the broker failed recently: do not hammer it
	}
	batch, err := r.claim()
	if err != nil {
		return rep, err
	}
	rep.Claimed = len(batch)
	for i, m := range batch {
		err := r.Gate.Cross(outbox.BoundarySend, func() error {
			return r.Broker.Publish(broker.Envelope{ID: m.ID, Event: m.Event})
		})
		if errors.Is(err, effect.ErrCrashed) {
			return rep, fmt.Errorf("outbox: send %s: %w", m.ID, err)
		}
		if err != nil {
			dead, released, err := r.recordFailure(m, err, batch[i+1:])
			if err != nil {
				return rep, err
			}
			rep.Failed++
			rep.Released += released
			if dead {
				rep.DeadLettered++
			}
			r.failedSteps++
			r.pausedUntil = r.Clock.Now().Add(r.cfg.Pause(r.failedSteps))
			rep.PausedUntil = r.pausedUntil
			return rep, nil
		}
		r.failedSteps = 0
		lost, err := r.recordSent(m)
		if err != nil {
			return rep, err
		}
		if lost {
			rep.LeaseLost++
		} else {
			rep.Sent++
		}
	}
	return rep, nil
}

// recordSentFenced is outbox.Relay's recordSent: SENT, in one transaction,
// only while this relay still holds the lease (Message.MarkSent checks it).
func (r *relay) recordSentFenced(m outbox.Message) (lost bool, err error) {
	now := r.Clock.Now()
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	cur, ok := outbox.Get(tx, m.Key)
	if !ok {
		return true, nil
	}
	if err := cur.MarkSent(r.cfg.Owner, now); err != nil {
		if errors.Is(err, outbox.ErrLeaseLost) || errors.Is(err, outbox.ErrIllegalTransition) {
			return true, nil
		}
		return false, fmt.Errorf("outbox: %w", err)
	}
	if r.cfg.DeleteOnSend {
		tx.Delete(outbox.Table, cur.Key)
	} else {
		tx.Put(outbox.Table, cur.Key, cur)
	}
	err = r.Gate.Cross(outbox.BoundaryMark, tx.Commit)
	if errors.Is(err, store.ErrConflict) {
		return true, nil // another relay wrote the row since we read it: it owns it now
	}
	if err != nil {
		return false, fmt.Errorf("outbox: mark sent %s: %w", m.ID, err)
	}
	return false, nil
}

// recordFailure is outbox.Relay's recordFailure: FAILED (or DEAD_LETTER)
// and the rest of the batch released, in one transaction.
func (r *relay) recordFailure(m outbox.Message, cause error, unsent []outbox.Message) (dead bool, released int, err error) {
	now := r.Clock.Now()
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	if cur, ok := outbox.Get(tx, m.Key); ok {
		jitter := 0.0
		if r.cfg.Jitter > 0 {
			jitter = r.Rand.Float64()
		}
		retryAt := now.Add(r.cfg.Backoff(cur.Attempts+1, jitter))
		if err := cur.MarkFailed(r.cfg.Owner, now, cause.Error(), retryAt, r.cfg.MaxAttempts); err == nil {
			tx.Put(outbox.Table, cur.Key, cur)
			dead = cur.Status == outbox.DeadLetter
		}
	}
	for _, u := range unsent {
		if cur, ok := outbox.Get(tx, u.Key); ok && cur.Release(r.cfg.Owner) == nil {
			tx.Put(outbox.Table, cur.Key, cur)
			released++
		}
	}
	err = r.Gate.Cross(outbox.BoundaryMark, tx.Commit)
	if errors.Is(err, store.ErrConflict) {
		return false, 0, nil // another relay wrote these rows meanwhile: they are its now
	}
	if err != nil {
		return false, 0, fmt.Errorf("outbox: mark failed %s: %w", m.ID, err)
	}
	return dead, released, nil
}
