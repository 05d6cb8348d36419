package dedup

import (
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/exercises/frame"
	"outboxlab/inbox"
)

// boundaryRecord is the second commit, the one that records the id.
var boundaryRecord = effect.Boundary{Process: "consumer", Effect: "record-processed", Kind: effect.Commit}

// handle bills a message once: it looks into the inbox first.
func (c *consumer) handle(id string, rec domain.Record) error {
	event, err := domain.Decode(rec)
	if err != nil {
		return c.Park(id, rec, err)
	}
	if _, done := c.Env.BillingDB.Get(inbox.TableProcessed, id); done {
		return nil // billed before
	}
	now := c.Env.Clock.Now()
	tx := c.Env.BillingDB.Begin(c.Env.Owner)
	defer tx.Rollback()
	if err := frame.Bill(tx, event, id, now); err != nil {
		return err
	}
	if err := c.Env.Gate.Cross(inbox.BoundaryCommit, tx.Commit); err != nil {
		return err
	}
	// TODO: the id is recorded in a transaction of its own.
	tx = c.Env.BillingDB.Begin(c.Env.Owner)
	defer tx.Rollback()
	if err := tx.Insert(inbox.TableProcessed, id, inbox.Processed{MessageID: id, At: now}); err != nil {
		return err
	}
	return c.Env.Gate.Cross(boundaryRecord, tx.Commit)
}
