package sendfirst

import (
	"errors"
	"time"

	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/outbox"
	"outboxlab/store"
)

// Step claims a batch and sends it message by message; each is marked SENT
// only after the broker confirmed it, and only while this relay still holds
// its lease. A failed send is recorded with its backoff, the rest of the
// batch is given back for the next round, and the relay pauses before it
// tries anything again.
func (r *relay) Step() (bool, error) {
	if r.env.DBClock.Now().Before(r.pausedUntil) {
		return false, nil // the broker failed recently: do not hammer it
	}
	batch, err := r.ClaimDue()
	if err != nil || len(batch) == 0 {
		return false, err
	}
	for i, m := range batch {
		err := r.env.Gate.Cross(outbox.BoundarySend, func() error {
			return r.env.Broker.Publish(broker.Envelope{ID: m.ID, Event: m.Event})
		})
		if errors.Is(err, effect.ErrCrashed) {
			return true, err
		}
		if err != nil {
			r.failed++
			r.pausedUntil = r.env.DBClock.Now().Add(r.cfg.Pause(r.failed))
			return true, r.record(m, batch[i+1:], func(cur *outbox.Message, now time.Time) error {
				retry := now.Add(r.cfg.Backoff(cur.Attempts+1, 0))
				return cur.MarkFailed(r.env.Owner, now, err.Error(), retry, r.cfg.MaxAttempts)
			})
		}
		r.failed = 0
		if err := r.record(m, nil, func(cur *outbox.Message, now time.Time) error {
			return cur.MarkSent(r.env.Owner, now)
		}); err != nil {
			return true, err
		}
	}
	return true, nil
}

// NextWake is the reference's, but not before the pause is over.
func (r *relay) NextWake() (time.Time, bool) {
	at, ok := r.RelayAdapter.NextWake()
	if ok && at.Before(r.pausedUntil) {
		at = r.pausedUntil
	}
	return at, ok
}

// record changes m with change and releases unsent, in one transaction. A
// change the message refuses (the lease ran out) writes nothing: another
// relay owns it now.
func (r *relay) record(m outbox.Message, unsent []outbox.Message, change func(*outbox.Message, time.Time) error) error {
	now := r.env.DBClock.Now()
	tx := r.env.OrderDB.Begin(r.env.Owner)
	defer tx.Rollback()
	if cur, ok := outbox.Get(tx, m.Key); ok && change(&cur, now) == nil {
		tx.Put(outbox.Table, cur.Key, cur)
	}
	for _, u := range unsent {
		if cur, ok := outbox.Get(tx, u.Key); ok && cur.Release(r.env.Owner) == nil {
			tx.Put(outbox.Table, cur.Key, cur)
		}
	}
	err := r.env.Gate.Cross(outbox.BoundaryMark, tx.Commit)
	if errors.Is(err, store.ErrConflict) {
		return nil
	}
	return err
}
