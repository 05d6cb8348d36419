package skiplocked

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/outbox"
	"outboxlab/store"
)

// Clock tells the relay the current time.
type Clock interface{ Now() time.Time }

// Relay is chapter 003's relay over the outbox table of package outbox
// (its rows not SENT are chapter 003's "processed_at IS NULL").
type Relay struct {
	DB     *store.DB
	Broker broker.Publisher
	Gate   effect.Gate
	Clock  Clock
	Owner  string
	// BatchSize is the LIMIT of the select (the chapter's 100).
	BatchSize int
	// BusyPoll and IdlePoll are the loop's sleeps after a batch and after
	// an empty poll (the chapter's 50 ms and 500 ms).
	BusyPoll, IdlePoll time.Duration
	// Retention is how long the cleanup job keeps processed rows (the
	// chapter's seven days).
	Retention time.Duration
	// Lock locks a row the select returns, or reports that another
	// transaction holds it: FOR UPDATE SKIP LOCKED, (*store.Tx).LockSkip,
	// as New sets it. It is a field so that the chapter's relay can be
	// run without its lock, as a plain SELECT: the lab's broken variant
	// skip-locked-tx-without-lock (sim/check/brokenvariants_test.go) replaces it,
	// and the lab must catch two relays publishing the same rows.
	Lock func(tx *store.Tx, key string) bool

	nextPoll time.Time // when the loop polls again
}

// New returns the relay with the chapter's numbers.
func New(db *store.DB, b broker.Publisher, gate effect.Gate, clock Clock, owner string) *Relay {
	return &Relay{DB: db, Broker: b, Gate: gate, Clock: clock, Owner: owner, BatchSize: 100,
		BusyPoll: 50 * time.Millisecond, IdlePoll: 500 * time.Millisecond, Retention: 7 * 24 * time.Hour,
		Lock: func(tx *store.Tx, key string) bool { return tx.LockSkip(outbox.Table, key) }}
}

// Step is one processOutboxBatch: it reports whether the poll found rows.
func (r *Relay) Step() (bool, error) {
	now := r.Clock.Now()
	if now.Before(r.nextPoll) {
		return false, nil // the loop sleeps
	}
	r.nextPoll = now.Add(r.IdlePoll)
	tx := r.DB.Begin(r.Owner)
	defer tx.Rollback()
	var rows []outbox.Message
	tx.ScanIndex(outbox.Table, outbox.IndexUnsent, func(key string, v any) bool {
		if r.Lock(tx, key) { // FOR UPDATE SKIP LOCKED
			rows = append(rows, v.(outbox.Message))
		}
		return len(rows) < r.BatchSize
	})
	if len(rows) == 0 {
		return false, nil
	}
	for _, m := range rows {
		err := r.Gate.Cross(outbox.BoundarySend, func() error {
			return r.Broker.Publish(broker.Envelope{ID: m.ID, Event: m.Event})
		})
		if errors.Is(err, effect.ErrCrashed) {
			return true, fmt.Errorf("skiplocked: send %s: %w", m.ID, err)
		}
		if err != nil {
			return true, nil // the transaction rolls back; the next poll tries the batch again
		}
	}
	for _, m := range rows {
		m.Status, m.SentAt = outbox.Sent, r.Clock.Now() // SET processed_at = now()
		tx.Put(outbox.Table, m.Key, m)
	}
	err := r.Gate.Cross(outbox.BoundaryMark, tx.Commit)
	if err != nil && !errors.Is(err, store.ErrConflict) {
		return true, fmt.Errorf("skiplocked: mark %d row(s): %w", len(rows), err)
	}
	r.nextPoll = r.Clock.Now().Add(r.BusyPoll)
	return true, nil
}

// NextWake returns when the loop polls next, and false when no row is
// left to process.
func (r *Relay) NextWake() (time.Time, bool) {
	if r.DB.IndexLen(outbox.Table, outbox.IndexUnsent) == 0 {
		return time.Time{}, false
	}
	return r.nextPoll, true
}

// Recover does nothing: a crash ended the transaction, and with it the
// row locks it held.
func (r *Relay) Recover() error { return nil }

// ReplayDeadLetters replays nothing: the relay makes no dead letters.
func (r *Relay) ReplayDeadLetters() (int, error) { return 0, nil }

// Cleanup is the chapter's daily job: DELETE the processed rows older than
// seven days.
func (r *Relay) Cleanup() (int, error) {
	cutoff := r.Clock.Now().Add(-r.Retention)
	tx := r.DB.Begin(r.Owner)
	defer tx.Rollback()
	n := 0
	tx.Scan(outbox.Table, func(key string, v any) bool {
		if m := v.(outbox.Message); m.Status == outbox.Sent && m.SentAt.Before(cutoff) {
			tx.Delete(outbox.Table, key)
			n++
		}
		return true
	})
	if n == 0 {
		return 0, nil
	}
	if err := r.Gate.Cross(outbox.BoundaryCleanup, tx.Commit); err != nil {
		return 0, fmt.Errorf("skiplocked: cleanup: %w", err)
	}
	return n, nil
}
