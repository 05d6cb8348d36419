package labtest

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

// PausesOnlyInNextWake is a learner's relay (see LearnerRelay) that pauses
// after a failed send by telling the simulator to wake it later
// (NextWake), and not in Step: woken by the simulator it keeps the pause,
// polled as its production loop polls it (every IdlePoll) it does not.
func PausesOnlyInNextWake() variant.Variant {
	return Learner("pauses-only-in-next-wake", func(r *LearnerRelay) { r.WakeLater = true })
}

// Learner is the reference with a LearnerRelay named name, its knobs set
// by change.
func Learner(name string, change func(*LearnerRelay)) variant.Variant {
	v := variant.Outbox()
	v.Name = name
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		ref, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		r := &LearnerRelay{RelayAdapter: variant.AdaptRelay(ref), env: env, Cfg: outbox.DefaultConfig(env.Owner)}
		change(r)
		return r, nil
	}
	return v
}

// LearnerRelay is a relay a learner writes on the reference's ClaimDue: it
// sends a batch in order and marks each message SENT or, when the send
// fails, FAILED with the reference's backoff, releases the rest of the
// batch and pauses as a whole (outbox.Config.Pause), checking the pause
// at the start of Step and in NextWake. KeepRest drops the release, and
// WakeLater the check in Step; RecoverStrictly gives it a recovery of its
// own that returns every error of its commit; MapOrder sends its batch in
// the order a map of it by message id ranges; WallPause pauses after a
// failed claim for as long as the host's clock draws (up to 400 ms);
// NoRecover gives nothing back after a restart; ScanLimit claims with
// claimScanLimited; ReplayOnStart puts every dead letter back in its
// recovery, as the operator's replay does.
type LearnerRelay struct {
	*variant.RelayAdapter
	env             variant.Env
	Cfg             outbox.Config
	failed          int
	pausedUntil     time.Time
	KeepRest        bool
	WakeLater       bool
	RecoverStrictly bool
	Backoff32       bool
	MapOrder        bool
	WallPause       bool
	NoRecover       bool
	ScanLimit       bool
	ReplayOnStart   bool
}

// Recover releases the claims the relay holds from before a restart. With
// RecoverStrictly it returns the database's refusal, when another relay
// took a claim over between its read and its commit, as an error.
func (r *LearnerRelay) Recover() error {
	if r.NoRecover {
		return nil
	}
	if r.ReplayOnStart {
		if _, err := r.RelayAdapter.ReplayDeadLetters(); err != nil {
			return err
		}
	}
	if !r.RecoverStrictly {
		return r.RelayAdapter.Recover()
	}
	tx := r.env.OrderDB.Begin(r.env.Owner)
	defer tx.Rollback()
	released := false
	tx.ScanIndex(outbox.Table, outbox.IndexUnsent, func(_ string, v any) bool {
		if m := v.(outbox.Message); m.LeaseOwner == r.env.Owner && m.Release(r.env.Owner) == nil {
			tx.Put(outbox.Table, m.Key, m)
			released = true
		}
		return true
	})
	if !released {
		return nil
	}
	if err := r.env.Gate.Cross(outbox.BoundaryRecover, tx.Commit); err != nil {
		return fmt.Errorf("outbox: recover: %w", err)
	}
	return nil
}

// Step sends what it claims, one message at a time, unless it pauses.
func (r *LearnerRelay) Step() (bool, error) {
	if !r.WakeLater && r.env.DBClock.Now().Before(r.pausedUntil) {
		return false, nil
	}
	claim := r.ClaimDue
	if r.ScanLimit {
		claim = r.claimScanLimited
	}
	batch, err := claim()
	if err != nil && r.WallPause {
		r.pausedUntil = r.env.DBClock.Now().Add(time.Duration(time.Now().UnixNano()%400) * time.Millisecond)
	}
	if err != nil || len(batch) == 0 {
		return false, err
	}
	if r.MapOrder {
		batch = inMapOrder(batch)
	}
	for i, m := range batch {
		sendErr := r.env.Gate.Cross(outbox.BoundarySend, func() error {
			return r.env.Broker.Publish(broker.Envelope{ID: m.ID, Event: m.Event})
		})
		if errors.Is(sendErr, effect.ErrCrashed) {
			return true, sendErr
		}
		now := r.env.DBClock.Now()
		tx := r.env.OrderDB.Begin(r.env.Owner)
		cur, _ := outbox.Get(tx, m.Key)
		if sendErr != nil {
			retryAt := now.Add(r.backoff(cur.Attempts + 1))
			if cur.MarkFailed(r.env.Owner, now, sendErr.Error(), retryAt, r.Cfg.MaxAttempts) == nil {
				tx.Put(outbox.Table, cur.Key, cur)
			}
			for _, u := range batch[i+1:] {
				if rest, ok := outbox.Get(tx, u.Key); ok && !r.KeepRest && rest.Release(r.env.Owner) == nil {
					tx.Put(outbox.Table, rest.Key, rest)
				}
			}
			r.failed++
			r.pausedUntil = now.Add(r.Cfg.Pause(r.failed))
		} else if cur.MarkSent(r.env.Owner, now) == nil {
			r.failed = 0
			tx.Put(outbox.Table, cur.Key, cur)
		}
		err := r.env.Gate.Cross(outbox.BoundaryMark, tx.Commit)
		tx.Rollback()
		if errors.Is(err, store.ErrConflict) {
			err = nil // another relay wrote these rows meanwhile: they are its now
		}
		if err != nil || sendErr != nil {
			return true, err
		}
	}
	return true, nil
}

// backoff is the reference's backoff after the n-th failed send; with
// Backoff32 it is computed in int32 milliseconds, which overflow from
// the 22nd (1 s·2^22): the wait turns negative, and the message is due at
// once.
func (r *LearnerRelay) backoff(n int) time.Duration {
	if !r.Backoff32 {
		return r.Cfg.Backoff(n, 0)
	}
	ms := int32(r.Cfg.BackoffBase/time.Millisecond) << n
	if limit := int32(r.Cfg.BackoffCap / time.Millisecond); ms > limit {
		ms = limit
	}
	return time.Duration(ms) * time.Millisecond
}

// NextWake is the reference's, or the end of the pause if later.
func (r *LearnerRelay) NextWake() (time.Time, bool) {
	at, ok := r.RelayAdapter.NextWake()
	if ok && at.Before(r.pausedUntil) {
		at = r.pausedUntil
	}
	return at, ok
}

// claimScanLimited is the reference's ClaimDue with a LIMIT before the
// filter: it reads at most a batch's worth of unsent rows, in key order,
// and only then looks for the due ones among them. Behind more waiting
// messages than a batch it never sees a due one.
func (r *LearnerRelay) claimScanLimited() ([]outbox.Message, error) {
	now := r.env.DBClock.Now()
	tx := r.env.OrderDB.Begin(r.env.Owner)
	defer tx.Rollback()
	var batch []outbox.Message
	blocked := map[string]bool{}
	scanned := 0
	tx.ScanIndex(outbox.Table, outbox.IndexUnsent, func(_ string, v any) bool {
		m := v.(outbox.Message)
		scanned++
		if scanned > r.Cfg.BatchSize {
			return false
		}
		if blocked[m.Event.AggregateID] {
			return true
		}
		if err := m.Claim(r.env.Owner, now, now.Add(r.Cfg.Lease)); err != nil {
			blocked[m.Event.AggregateID] = true
			return true
		}
		tx.Put(outbox.Table, m.Key, m)
		batch = append(batch, m)
		return len(batch) < r.Cfg.BatchSize
	})
	if len(batch) == 0 {
		return nil, nil
	}
	err := r.env.Gate.Cross(outbox.BoundaryClaim, tx.Commit)
	if errors.Is(err, store.ErrConflict) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("outbox: claim: %w", err)
	}
	return batch, nil
}

// inMapOrder returns batch as a map keyed by message id ranges over it.
func inMapOrder(batch []outbox.Message) []outbox.Message {
	byID := map[string]outbox.Message{}
	for _, m := range batch {
		byID[m.ID] = m
	}
	var out []outbox.Message
	for _, m := range byID {
		out = append(out, m)
	}
	return out
}
