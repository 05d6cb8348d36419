package billing

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/store"
)

// The consumer's effect boundaries.
var (
	// BoundaryCommit is the commit of the effect together with the inbox row
	// (consumer.before-commit, consumer.after-commit).
	BoundaryCommit = effect.Boundary{Process: "consumer", Effect: "commit"}
	// BoundaryAck is the acknowledgement of the delivery to the broker.
	BoundaryAck = effect.Boundary{Process: "consumer", Effect: "ack"}
	// BoundaryReplay is the commit of a replayed dead letter.
	BoundaryReplay = effect.Boundary{Process: "consumer", Effect: "replay"}
)

// Source is the broker as a consumer sees it.
type Source interface {
	Receive(subscription string) (broker.Delivery, bool)
	Ack(subscription string, tag uint64) error
}

// Clock tells the consumer the current time.
type Clock interface{ Now() time.Time }

// Parked is a message waiting for an earlier event of its aggregate, or a
// dead letter the consumer cannot process.
type Parked struct {
	Envelope broker.Envelope
	Reason   string
	At       time.Time
}

// InboxEntry records that a message's effect was applied.
type InboxEntry struct {
	MessageID string
	At        time.Time
}

// Consumer is the correct billing consumer: idempotent through an inbox in
// the effect's transaction, and ordered per aggregate.
type Consumer struct {
	DB           *store.DB
	Broker       Source
	Gate         effect.Gate
	Clock        Clock
	Subscription string
	// Owner is the process name its transactions belong to, e.g. "billing".
	Owner string
}

// Step receives one delivery, handles it and acknowledges it. It reports
// whether there was a delivery, and returns effect.ErrCrashed (wrapped) when
// the process crashed at a boundary.
func (c *Consumer) Step() (bool, error) {
	d, ok := c.Broker.Receive(c.Subscription)
	if !ok {
		return false, nil
	}
	if err := c.handle(d.Envelope); err != nil {
		return true, err
	}
	err := c.Gate.Cross(BoundaryAck, func() error { return c.Broker.Ack(c.Subscription, d.Tag) })
	if err != nil {
		return true, fmt.Errorf("billing: ack %s: %w", d.Envelope.ID, err)
	}
	return true, nil
}

// handle applies one message in one transaction, or decides that there is
// nothing to apply. Acknowledging is the caller's next step.
func (c *Consumer) handle(env broker.Envelope) error {
	now := c.Clock.Now()
	tx := c.DB.Begin(c.Owner)
	defer tx.Rollback()
	if _, done := tx.Get(TableInbox, env.ID); done {
		return nil // a redelivery: the effect is already there
	}
	if _, dead := tx.Get(TableDead, env.ID); dead {
		return nil // already a visible dead letter
	}
	if !c.process(tx, env, now) {
		return nil
	}
	err := c.Gate.Cross(BoundaryCommit, tx.Commit)
	if errors.Is(err, store.ErrDuplicateKey) {
		return nil // another consumer instance applied it first
	}
	if err != nil {
		return fmt.Errorf("billing: commit %s: %w", env.ID, err)
	}
	return nil
}

// process writes into tx what env means for billing and reports whether
// there is anything to commit.
func (c *Consumer) process(tx *store.Tx, env broker.Envelope, now time.Time) bool {
	event, err := domain.Decode(env.Event)
	if err != nil {
		tx.Put(TableDead, env.ID, Parked{Envelope: env, Reason: err.Error(), At: now})
		return true
	}
	acc := LoadAccount(tx, event.AggregateID())
	switch {
	case event.Seq() <= acc.Applied:
		return false // stale: a newer or the same change is already applied
	case event.Seq() > acc.Applied+1:
		key := parkedKey(event.AggregateID(), event.Seq())
		if _, ok := tx.Get(TableParked, key); ok {
			return false
		}
		tx.Put(TableParked, key, Parked{Envelope: env, Reason: fmt.Sprintf("waiting for #%d", acc.Applied+1), At: now})
		return true
	}
	if err := c.apply(tx, env.ID, event, now); err != nil {
		tx.Put(TableDead, env.ID, Parked{Envelope: env, Reason: err.Error(), At: now})
		return true
	}
	c.drainParked(tx, event.AggregateID(), now)
	return true
}

// apply writes the effect and the inbox row: one transaction, so that they
// exist together or not at all.
func (c *Consumer) apply(tx *store.Tx, messageID string, event domain.Event, now time.Time) error {
	if err := ApplyEffect(tx, event, messageID, now); err != nil {
		return err
	}
	return tx.Insert(TableInbox, messageID, InboxEntry{MessageID: messageID, At: now})
}

// drainParked applies the parked successors of an aggregate that are now in
// sequence.
func (c *Consumer) drainParked(tx *store.Tx, orderID string, now time.Time) {
	for {
		next := LoadAccount(tx, orderID).Applied + 1
		key := parkedKey(orderID, next)
		v, ok := tx.Get(TableParked, key)
		if !ok {
			return
		}
		p := v.(Parked)
		tx.Delete(TableParked, key)
		event, err := domain.Decode(p.Envelope.Event)
		if err == nil {
			err = c.apply(tx, p.Envelope.ID, event, now)
		}
		if err != nil {
			tx.Put(TableDead, p.Envelope.ID, Parked{Envelope: p.Envelope, Reason: err.Error(), At: now})
			return
		}
	}
}

func parkedKey(orderID string, seq int) string { return fmt.Sprintf("%s/%012d", orderID, seq) }

// ReplayDeadLetters processes every dead letter again, once an operator fixed
// the cause, and returns how many were applied (or parked behind a gap).
func (c *Consumer) ReplayDeadLetters() (int, error) {
	now := c.Clock.Now()
	tx := c.DB.Begin(c.Owner)
	defer tx.Rollback()
	n := 0
	tx.Scan(TableDead, func(key string, v any) bool {
		p := v.(Parked)
		tx.Delete(TableDead, key)
		if _, done := tx.Get(TableInbox, p.Envelope.ID); !done {
			c.process(tx, p.Envelope, now)
		}
		n++
		return true
	})
	if n == 0 {
		return 0, nil
	}
	if err := c.Gate.Cross(BoundaryReplay, tx.Commit); err != nil {
		return 0, fmt.Errorf("billing: replay: %w", err)
	}
	return n, nil
}
