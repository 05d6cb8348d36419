package mistakes

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/store"
	"outboxlab/variant"
)

// Slips are mistakes the lab does not ship, each the reference with one
// change a learner plausibly makes; the external test runs them through
// the matrix (package scenarios imports this one).
var Slips = map[string]func() variant.Variant{
	"cleanup-by-creation": func() variant.Variant {
		v := CleanupByAge()
		v.Name, v.Summary, v.Expect = "cleanup-by-creation", lang.Text{EN: "retention deletes SENT messages by the time they were written"}, nil
		v.NewRelay = func(env variant.Env) (variant.Relay, error) {
			r, err := newRelay(env, nil)
			return &cleanupByCreationRelay{r}, err
		}
		return v
	},
	"park-and-record": func() variant.Variant {
		return consumerMistake("park-and-record", lang.Text{EN: "records an early event's id in the inbox when it parks it"}, "001", nil,
			func(c *consumer) { c.process = c.processParkAndRecord })
	},
	"duplicate-key-is-an-error": func() variant.Variant {
		return consumerMistake("duplicate-key-is-an-error", lang.Text{EN: "returns the refusal of a commit another billing instance beat as an error"}, "003", nil,
			func(c *consumer) { c.handle = c.handleStrictly })
	},
	"delete-on-send-unfenced": func() variant.Variant {
		v := NoFencing()
		v.Name, v.Summary, v.Expect = "delete-on-send-unfenced", lang.Text{EN: "deletes a message on send without checking that it still holds the lease"}, nil
		v.NewRelay = func(env variant.Env) (variant.Relay, error) {
			r, err := newRelay(env, func(c *outbox.Config) { c.DeleteOnSend = true })
			if err != nil {
				return nil, err
			}
			r.recordSent = r.recordSentBlind
			return r, nil
		}
		return v
	},
	"drain-one": func() variant.Variant {
		return consumerMistake("drain-one", lang.Text{EN: "after an event, applies the next parked one, not those after it"}, "001", nil,
			func(c *consumer) { c.process = c.processDrainOne })
	},
}

// handleStrictly is referenceHandle with one change: a commit refused by
// a unique key is an error, though another billing instance applied the
// same message first.
func (c *consumer) handleStrictly(env broker.Envelope) error {
	now := c.Clock.Now()
	tx := c.DB.Begin(c.cfg.Owner)
	defer tx.Rollback()
	if _, done := tx.Get(inbox.TableProcessed, env.ID); done {
		return nil
	}
	if _, dead := tx.Get(inbox.TableDead, env.ID); dead {
		return nil
	}
	changed, err := c.process(tx, env, now)
	if err != nil || !changed {
		return err
	}
	err = c.Gate.Cross(inbox.BoundaryCommit, tx.Commit)
	// MISTAKE: no check for store.ErrDuplicateKey: losing the race is routine.
	if err != nil {
		return fmt.Errorf("inbox: commit %s: %w", env.ID, err)
	}
	return nil
}

// processParkAndRecord is referenceProcess with one change: an event that
// came early is parked and its id recorded as processed at once.
func (c *consumer) processParkAndRecord(tx *store.Tx, env broker.Envelope, now time.Time) (bool, error) {
	event, err := domain.Decode(env.Event)
	switch {
	case errors.Is(err, domain.ErrUnknownEvent) || errors.Is(err, domain.ErrUnknownVersion):
		tx.Put(inbox.TableDead, env.ID, inbox.Parked{Envelope: env, Reason: err.Error(), At: now})
		return true, nil
	case err != nil:
		return false, failure{err}
	}
	applied := inbox.LoadApplied(tx, event.AggregateID())
	switch {
	case event.Seq() <= applied:
		return false, nil
	case event.Seq() > applied+1:
		key := inbox.ParkedKey(event.AggregateID(), event.Seq())
		if _, ok := tx.Get(inbox.TableParked, key); ok {
			return false, nil
		}
		tx.Put(inbox.TableParked, key, inbox.Parked{Envelope: env, Reason: fmt.Sprintf("waiting for #%d", applied+1), At: now})
		// MISTAKE: "it is handled": but its effect is not applied yet.
		tx.Put(inbox.TableProcessed, env.ID, inbox.Processed{MessageID: env.ID, At: now})
		return true, nil
	}
	if err := c.apply(tx, env.ID, event, now); err != nil {
		return false, failure{err}
	}
	return true, c.drainParked(tx, event.AggregateID(), now)
}

// processDrainOne is referenceProcess with drainOne for drainParked.
func (c *consumer) processDrainOne(tx *store.Tx, env broker.Envelope, now time.Time) (bool, error) {
	event, err := domain.Decode(env.Event)
	switch {
	case errors.Is(err, domain.ErrUnknownEvent) || errors.Is(err, domain.ErrUnknownVersion):
		tx.Put(inbox.TableDead, env.ID, inbox.Parked{Envelope: env, Reason: err.Error(), At: now})
		return true, nil
	case err != nil:
		return false, failure{err}
	}
	applied := inbox.LoadApplied(tx, event.AggregateID())
	switch {
	case event.Seq() <= applied:
		return false, nil
	case event.Seq() > applied+1:
		key := inbox.ParkedKey(event.AggregateID(), event.Seq())
		if _, ok := tx.Get(inbox.TableParked, key); ok {
			return false, nil
		}
		tx.Put(inbox.TableParked, key, inbox.Parked{Envelope: env, Reason: fmt.Sprintf("waiting for #%d", applied+1), At: now})
		return true, nil
	}
	if err := c.apply(tx, env.ID, event, now); err != nil {
		return false, failure{err}
	}
	return true, c.drainOne(tx, event.AggregateID(), now) // MISTAKE: see drainOne
}

// drainOne is drainParked with one change: it returns after the first
// round of its loop.
func (c *consumer) drainOne(tx *store.Tx, orderID string, now time.Time) error {
	for {
		next := inbox.LoadApplied(tx, orderID) + 1
		key := inbox.ParkedKey(orderID, next)
		v, ok := tx.Get(inbox.TableParked, key)
		if !ok {
			return nil
		}
		p := v.(inbox.Parked)
		tx.Delete(inbox.TableParked, key)
		event, err := domain.Decode(p.Envelope.Event)
		if err == nil {
			err = c.apply(tx, p.Envelope.ID, event, now)
		}
		if err != nil {
			tx.Put(inbox.TableDead, p.Envelope.ID, inbox.Parked{Envelope: p.Envelope, Reason: err.Error(), At: now})
			return nil
		}
		// MISTAKE: done after one: the events parked behind the next one
		// stay parked, and nothing wakes them.
		return nil
	}
}

// cleanupByCreationRelay is the reference relay with one change in its
// retention cleanup.
type cleanupByCreationRelay struct{ *relay }

// Cleanup is outbox.Relay.Cleanup with one change: a SENT message's age is
// counted from when it was written.
func (r *cleanupByCreationRelay) Cleanup() (int, error) {
	cutoff := r.Clock.Now().Add(-r.cfg.Retention)
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	n := 0
	tx.Scan(outbox.Table, func(key string, v any) bool {
		// MISTAKE: CreatedAt for SentAt: a message sent long after it was
		// written (a replayed dead letter, a backlog) goes at once.
		if m := v.(outbox.Message); m.Status == outbox.Sent && m.CreatedAt.Before(cutoff) {
			tx.Delete(outbox.Table, key)
			n++
		}
		return true
	})
	if n == 0 {
		return 0, nil
	}
	if err := r.Gate.Cross(outbox.BoundaryCleanup, tx.Commit); err != nil {
		return 0, fmt.Errorf("outbox: cleanup: %w", err)
	}
	return n, nil
}
