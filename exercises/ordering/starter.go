package ordering

import (
	"errors"
	"time"

	"outboxlab/domain"
	"outboxlab/inbox"
	"outboxlab/store"
)

// handle bills a message once: the bill and the id in the inbox commit
// together, or not at all.
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
	// TODO (step 1): this bills every event the moment it arrives. Which
	// event of its order was applied last (inbox.LoadApplied)? One at or
	// below it is stale; one beyond the next waits (c.park); the next is
	// billed (c.apply), and then the parked ones now next
	// (c.applyParked).
	if err := c.apply(tx, id, event, now); err != nil {
		return err
	}
	err = c.Env.Gate.Cross(inbox.BoundaryCommit, tx.Commit)
	if errors.Is(err, store.ErrDuplicateKey) {
		return nil // another consumer billed it first
	}
	return err
}

// applyParked applies the parked events of order that are next in line.
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
			// TODO (step 2): billing cannot apply it now that its turn
			// came (an amount in another currency than its order's), and
			// this error undoes the whole transaction, the event that was
			// next included.
			return err
		}
	}
}
