// Package frame is the billing consumer the consumer exercises (dedup,
// ordering) share: everything but the part the learner writes. Step
// receives a delivery, hands it to the exercise's handle and acknowledges
// it; Park keeps a message billing cannot read, or cannot apply, as a dead
// letter; Bill writes billing's effect; ReplayDeadLetters is the
// operator's replay. An exercise embeds *Consumer and writes handle:
//
//	type consumer struct{ *frame.Consumer }
//
//	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
//		c := &consumer{}
//		c.Consumer = frame.New(env, c.handle)
//		return c, nil
//	}
//
//	func (c *consumer) handle(id string, rec domain.Record) error { ... }
package frame

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/store"
	"outboxlab/variant"
)

// Consumer is billing's consumer around an exercise's handle.
type Consumer struct {
	// Env is the process's world: its database, the broker, its gate
	// and its clock.
	Env    variant.Env
	handle func(id string, rec domain.Record) error
}

// New returns the consumer for env's process that bills each delivery
// with handle. handle returns nil once the message is billed (or was
// billed before), Park's answer for one it cannot read, and any other
// error for one it did not bill (a failed commit): that one comes again.
func New(env variant.Env, handle func(id string, rec domain.Record) error) *Consumer {
	return &Consumer{Env: env, handle: handle}
}

// Step receives one delivery, handles it and acknowledges it.
func (c *Consumer) Step() (bool, error) {
	d, ok := c.Env.Broker.Receive(variant.Subscription)
	if !ok {
		return false, nil
	}
	err := c.handle(d.Envelope.ID, d.Envelope.Event)
	var r refusal
	if errors.As(err, &r) {
		// Billing cannot apply it (an amount in another currency than
		// its order's): a dead letter until its cause is fixed.
		err = c.Park(d.Envelope.ID, d.Envelope.Event, r.err)
	}
	if errors.Is(err, errAgain) {
		// Not yet a dead letter: give it back, it comes again.
		return true, c.Env.Broker.Nack(variant.Subscription, d.Tag)
	}
	if err != nil {
		if !errors.Is(err, effect.ErrCrashed) {
			// Not applied (its commit failed): give it back, it comes again.
			err = errors.Join(err, c.Env.Broker.Nack(variant.Subscription, d.Tag))
		}
		return true, fmt.Errorf("%s: %w", d.Envelope.ID, err)
	}
	return true, c.Env.Gate.Cross(inbox.BoundaryAck, func() error { return c.Env.Broker.Ack(variant.Subscription, d.Tag) })
}

// Park keeps a message billing cannot read, or cannot apply, as a dead
// letter, once: a copy that arrives again (the relay sent it twice) finds
// it parked. One of a contract billing does not know (an unknown version
// or type) goes at once: no retry can read it. Any other may have been
// damaged on its way and is tried maxAttempts times first: until then
// Park counts the attempt (inbox.TableFailures) and returns errAgain, and
// Step hands the message back.
func (c *Consumer) Park(id string, rec domain.Record, cause error) error {
	tx := c.Env.BillingDB.Begin(c.Env.Owner)
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
			if err := c.Env.Gate.Cross(inbox.BoundaryFailure, tx.Commit); err != nil {
				return err
			}
			return errAgain
		}
		tx.Delete(inbox.TableFailures, id)
	}
	tx.Put(inbox.TableDead, id, inbox.Parked{Envelope: broker.Envelope{ID: id, Event: rec}, Reason: cause.Error(), At: c.Env.Clock.Now()})
	return c.Env.Gate.Cross(inbox.BoundaryCommit, tx.Commit)
}

// maxAttempts is how often Park tries a message before it is a dead
// letter: billing's policy (inbox.Config.MaxAttempts).
var maxAttempts = inbox.DefaultConfig("", "").MaxAttempts

// errAgain says a message billing could not handle this time is to be
// tried again.
var errAgain = errors.New("try again")

// ReplayDeadLetters asks the broker for the originals of the dead letters.
func (c *Consumer) ReplayDeadLetters() (int, error) {
	tx := c.Env.BillingDB.Begin(c.Env.Owner)
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
	if err := c.Env.Gate.Cross(inbox.BoundaryReplay, tx.Commit); err != nil {
		return 0, err
	}
	var errs []error
	for _, id := range ids {
		errs = append(errs, c.Env.Broker.Redeliver(variant.Subscription, id))
	}
	return len(ids), errors.Join(errs...)
}

// Bill writes billing's effect (billing.ApplyEffect). An event billing
// cannot apply comes back as a refusal, which Step makes a dead letter
// when handle returns it.
func Bill(tx *store.Tx, event domain.Event, id string, now time.Time) error {
	if err := billing.ApplyEffect(tx, event, id, now); err != nil {
		return refusal{err}
	}
	return nil
}

// refusal is billing's refusal to apply an event.
type refusal struct{ err error }

func (r refusal) Error() string { return r.err.Error() }
func (r refusal) Unwrap() error { return r.err }
