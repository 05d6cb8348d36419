package ordering

import (
	"errors"
	"time"

	"outboxlab/domain"
	"outboxlab/inbox"
	"outboxlab/store"
)

// handle bills a message once and in its order's sequence: an event that
// comes early is parked until the one before it is applied; one at or
// below the last applied is stale. Bill, inbox row, sequence and parked
// events change in one transaction.
func (c *consumer) handle(id string, rec domain.Record) error {
	event, err := domain.Decode(rec)
	if err != nil {
		return c.Park(id, rec, err)
	}
	now := c.Env.Clock.Now()
	tx := c.Env.BillingDB.Begin(c.Env.Owner)
	defer tx.Rollback()
	if _, done := tx.Get(inbox.TableProcessed, id); done {
		return nil // billed before
	}
	order := event.AggregateID()
	applied := inbox.LoadApplied(tx, order)
	switch {
	case event.Seq() <= applied:
		return nil // stale: this change or a newer one is billed
	case event.Seq() > applied+1:
		c.park(tx, id, rec, applied+1, now) // early: wait for #applied+1
	default:
		if err := c.apply(tx, id, event, now); err != nil {
			return err
		}
		if err := c.applyParked(tx, order, now); err != nil {
			return err
		}
	}
	err = c.Env.Gate.Cross(inbox.BoundaryCommit, tx.Commit)
	if errors.Is(err, store.ErrDuplicateKey) {
		return nil // another consumer billed it first
	}
	return err
}

// applyParked applies the parked events of order that are next in line, up
// to one billing cannot apply.
func (c *consumer) applyParked(tx *store.Tx, order string, now time.Time) error {
	for {
		key := inbox.ParkedKey(order, inbox.LoadApplied(tx, order)+1)
		v, ok := tx.Get(inbox.TableParked, key)
		if !ok {
			return nil
		}
		p := v.(inbox.Parked)
		tx.Delete(inbox.TableParked, key)
		event, err := domain.Decode(p.Envelope.Event)
		if err != nil {
			return err
		}
		if err := c.apply(tx, p.Envelope.ID, event, now); err != nil {
			// It cannot be billed now that its turn came: a dead letter,
			// replayed once its cause is fixed. Those after it wait.
			tx.Put(inbox.TableDead, p.Envelope.ID, inbox.Parked{Envelope: p.Envelope, Reason: err.Error(), At: now})
			return nil
		}
	}
}
