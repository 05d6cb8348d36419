package dedup

import (
	"errors"

	"outboxlab/domain"
	"outboxlab/exercises/frame"
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
	if err := frame.Bill(tx, event, id, now); err != nil {
		return err
	}
	if err := tx.Insert(inbox.TableProcessed, id, inbox.Processed{MessageID: id, At: now}); err != nil {
		return err
	}
	err = c.Env.Gate.Cross(inbox.BoundaryCommit, tx.Commit)
	if errors.Is(err, store.ErrDuplicateKey) {
		return nil // another consumer billed it first
	}
	return err
}
