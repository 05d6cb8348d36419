// Package dedup is an exercise (chapter 000 section 7: "Sonst entsteht ein
// neues Dual-Write-Problem auf Consumer-Seite"; chapter 003): the starter
// consumer checks its inbox before it bills, but records a message's id in
// a transaction of its own, after the bill. A crash between the two
// commits, and the redelivered message bills twice. Make the inbox part of
// the effect's transaction:
//
//	go test ./exercises/dedup -exercise
//
// The consumer applies events in the order they arrive; keeping order per
// order is another exercise, so the variant declares what that costs under
// reorder, poison, unknown-contract and wrong-currency (OUT_OF_ORDER) and
// nothing else.
package dedup

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/check"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/store"
	"outboxlab/variant"
)

// Variant is the exercise's variant: the reference service and relay with
// the learner's consumer.
func Variant() variant.Variant {
	v := variant.Outbox()
	v.Name = "exercise-dedup"
	v.Summary = "the learner's consumer: inbox and bill"
	v.Expect = map[string]check.Outcome{"reorder": check.OutOfOrder, "poison": check.OutOfOrder, "unknown-contract": check.OutOfOrder, "wrong-currency": check.OutOfOrder}
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) { return &consumer{env: env}, nil }
	return v
}

type consumer struct{ env variant.Env }

// Step receives one delivery, handles it and acknowledges it.
func (c *consumer) Step() (bool, error) {
	d, ok := c.env.Broker.Receive(variant.Subscription)
	if !ok {
		return false, nil
	}
	err := c.handle(d.Envelope.ID, d.Envelope.Event)
	var r refusal
	if errors.As(err, &r) {
		// Billing cannot apply it (an amount in another currency than
		// its order's): a dead letter until its cause is fixed.
		err = c.park(d.Envelope.ID, d.Envelope.Event, r.err)
	}
	if errors.Is(err, errAgain) {
		// Not yet a dead letter: give it back, it comes again.
		return true, c.env.Broker.Nack(variant.Subscription, d.Tag)
	}
	if err != nil {
		if !errors.Is(err, effect.ErrCrashed) {
			// Not applied (its commit failed): give it back, it comes again.
			err = errors.Join(err, c.env.Broker.Nack(variant.Subscription, d.Tag))
		}
		return true, fmt.Errorf("%s: %w", d.Envelope.ID, err)
	}
	return true, c.env.Gate.Cross(inbox.BoundaryAck, func() error { return c.env.Broker.Ack(variant.Subscription, d.Tag) })
}

// park keeps a message billing cannot read, or cannot apply, as a dead
// letter, once: a copy that arrives again (the relay sent it twice) finds
// it parked. One of a contract billing does not know (an unknown version
// or type) goes at once: no retry can read it. Any other may have been
// damaged on its way and is tried maxAttempts times first: until then
// park counts the attempt (inbox.TableFailures) and returns errAgain, and
// Step hands the message back.
func (c *consumer) park(id string, rec domain.Record, cause error) error {
	tx := c.env.BillingDB.Begin(c.env.Owner)
	defer tx.Rollback()
	if _, dead := tx.Get(inbox.TableDead, id); dead {
		return nil
	}
	if !errors.Is(cause, domain.ErrUnknownEvent) && !errors.Is(cause, domain.ErrUnknownVersion) {
		n := 1
		if v, ok := tx.Get(inbox.TableFailures, id); ok {
			n = v.(int) + 1
		}
		if n < maxAttempts {
			tx.Put(inbox.TableFailures, id, n)
			if err := c.env.Gate.Cross(inbox.BoundaryFailure, tx.Commit); err != nil {
				return err
			}
			return errAgain
		}
		tx.Delete(inbox.TableFailures, id)
	}
	tx.Put(inbox.TableDead, id, inbox.Parked{Envelope: broker.Envelope{ID: id, Event: rec}, Reason: cause.Error(), At: c.env.Clock.Now()})
	return c.env.Gate.Cross(inbox.BoundaryCommit, tx.Commit)
}

// maxAttempts is how often park tries a message before it is a dead
// letter: billing's policy (inbox.Config.MaxAttempts).
var maxAttempts = inbox.DefaultConfig("", "").MaxAttempts

// errAgain says a message billing could not handle this time is to be
// tried again.
var errAgain = errors.New("try again")

// ReplayDeadLetters asks the broker for the originals of the dead letters.
func (c *consumer) ReplayDeadLetters() (int, error) {
	tx := c.env.BillingDB.Begin(c.env.Owner)
	defer tx.Rollback()
	var ids []string
	tx.Scan(inbox.TableDead, func(key string, _ any) bool {
		tx.Delete(inbox.TableDead, key)
		ids = append(ids, key)
		return true
	})
	if len(ids) == 0 {
		return 0, nil
	}
	if err := c.env.Gate.Cross(inbox.BoundaryReplay, tx.Commit); err != nil {
		return 0, err
	}
	var errs []error
	for _, id := range ids {
		errs = append(errs, c.env.Broker.Redeliver(variant.Subscription, id))
	}
	return len(ids), errors.Join(errs...)
}

// bill writes billing's effect (billing.ApplyEffect). An event billing
// cannot apply comes back as a refusal, which Step makes a dead letter
// when handle returns it.
func bill(tx *store.Tx, event domain.Event, id string, now time.Time) error {
	if err := billing.ApplyEffect(tx, event, id, now); err != nil {
		return refusal{err}
	}
	return nil
}

// refusal is billing's refusal to apply an event.
type refusal struct{ err error }

func (r refusal) Error() string { return r.err.Error() }
func (r refusal) Unwrap() error { return r.err }
