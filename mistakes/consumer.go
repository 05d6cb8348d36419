package mistakes

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/store"
	"outboxlab/variant"
)

// consumerMistake builds a variant with the reference service and relay
// and the reference consumer with one change, made by change.
func consumerMistake(name string, summary lang.Text, chapter string, expect map[string]variant.Outcome, change func(*consumer)) variant.Variant {
	return variant.Variant{
		Name: name, Summary: summary, Chapter: chapter, Expect: expect,
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay:   variant.NewOutboxRelay,
		NewConsumer: func(env variant.Env) (variant.Consumer, error) {
			c, err := newConsumer(env)
			if err != nil {
				return nil, err
			}
			change(c)
			return c, nil
		},
	}
}

// consumer is the reference consumer (inbox.Consumer) with the reference's
// own names, so that a mistake's version of one of its functions reads as
// the original with one change (go test ./mistakes -run OneChange -v). It
// embeds the reference (DB, Broker, Gate, Clock, Effect, and the dead
// letter replay) and writes out Step and the functions below it; handle,
// process and apply are the reference's unless a mistake sets them.
type consumer struct {
	*inbox.Consumer
	cfg     inbox.Config
	handle  func(broker.Envelope) error
	process func(*store.Tx, broker.Envelope, time.Time) (bool, error)
	apply   func(*store.Tx, string, domain.Event, time.Time) error
}

// newConsumer builds billing's reference consumer for env's process.
func newConsumer(env variant.Env) (*consumer, error) {
	return newConsumerFor(env, variant.Subscription, billing.ApplyEffect)
}

// newConsumerFor builds the reference consumer of subscription with
// effect: billing's, or the payment service's.
func newConsumerFor(env variant.Env, subscription string, effect inbox.Effect) (*consumer, error) {
	cfg := inbox.DefaultConfig(env.Owner, subscription)
	ref, err := inbox.NewConsumer(cfg, inbox.Deps{DB: env.BillingDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Effect: effect})
	if err != nil {
		return nil, err
	}
	c := &consumer{Consumer: ref, cfg: cfg}
	c.handle, c.process, c.apply = c.referenceHandle, c.referenceProcess, c.referenceApply
	return c, nil
}

// failure is a message that could not be processed this time.
type failure struct{ err error }

func (f failure) Error() string { return f.err.Error() }

// Step is inbox.Consumer.Step. DO NOT COPY: use inbox.Consumer.
func (c *consumer) Step() (bool, error) {
	d, ok := c.Broker.Receive(c.cfg.Subscription)
	if !ok {
		return false, nil
	}
	if err := c.handle(d.Envelope); err != nil {
		var f failure
		if !errors.As(err, &f) {
			return true, c.handBack(d, err)
		}
		parked, err := c.countFailure(d.Envelope, f)
		if err != nil {
			return true, c.handBack(d, err)
		}
		if !parked {
			// Hand it back; it comes again after what is already waiting.
			return true, c.Broker.Nack(c.cfg.Subscription, d.Tag)
		}
	}
	tag := d.Tag
	err := c.Gate.Cross(inbox.BoundaryAck, func() error { return c.Broker.Ack(c.cfg.Subscription, tag) })
	if err != nil {
		return true, fmt.Errorf("inbox: ack %s: %w", d.Envelope.ID, err)
	}
	return true, nil
}

// handBack is inbox.Consumer's handBack.
func (c *consumer) handBack(d broker.Delivery, err error) error {
	if errors.Is(err, effect.ErrCrashed) {
		return err
	}
	return errors.Join(err, c.Broker.Nack(c.cfg.Subscription, d.Tag))
}

// referenceHandle is inbox.Consumer's handle.
func (c *consumer) referenceHandle(env broker.Envelope) error {
	now := c.Clock.Now()
	tx := c.DB.Begin(c.cfg.Owner)
	defer tx.Rollback()
	if _, done := tx.Get(inbox.TableProcessed, env.ID); done {
		return nil // a redelivery: the effect is already there
	}
	if _, dead := tx.Get(inbox.TableDead, env.ID); dead {
		return nil // already a visible dead letter
	}
	changed, err := c.process(tx, env, now)
	if err != nil || !changed {
		return err
	}
	err = c.Gate.Cross(inbox.BoundaryCommit, tx.Commit)
	if errors.Is(err, store.ErrDuplicateKey) {
		return nil // another consumer instance applied it first
	}
	if err != nil {
		return fmt.Errorf("inbox: commit %s: %w", env.ID, err)
	}
	return nil
}

// referenceProcess is inbox.Consumer's process.
func (c *consumer) referenceProcess(tx *store.Tx, env broker.Envelope, now time.Time) (bool, error) {
	event, err := domain.Decode(env.Event)
	switch {
	case errors.Is(err, domain.ErrUnknownEvent) || errors.Is(err, domain.ErrUnknownVersion):
		// A contract this code does not know: park it at once, never misread it.
		tx.Put(inbox.TableDead, env.ID, inbox.Parked{Envelope: env, Reason: err.Error(), At: now})
		return true, nil
	case err != nil:
		return false, failure{err}
	}
	applied := inbox.LoadApplied(tx, event.AggregateID())
	switch {
	case event.Seq() <= applied:
		return false, nil // stale: this or a newer change is already applied
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
	return true, c.drainParked(tx, event.AggregateID(), now)
}

// referenceApply is inbox.Consumer's apply.
func (c *consumer) referenceApply(tx *store.Tx, messageID string, event domain.Event, now time.Time) error {
	if err := c.Effect(tx, event, messageID, now); err != nil {
		return err
	}
	inbox.SetApplied(tx, event.AggregateID(), event.Seq())
	return tx.Insert(inbox.TableProcessed, messageID, inbox.Processed{MessageID: messageID, At: now})
}

// drainParked is inbox.Consumer's drainParked.
func (c *consumer) drainParked(tx *store.Tx, orderID string, now time.Time) error {
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
	}
}

// countFailure is inbox.Consumer's countFailure.
func (c *consumer) countFailure(env broker.Envelope, f failure) (parked bool, err error) {
	now := c.Clock.Now()
	tx := c.DB.Begin(c.cfg.Owner)
	defer tx.Rollback()
	n := 1
	if v, ok := tx.Get(inbox.TableFailures, env.ID); ok {
		n = v.(int) + 1
	}
	b := inbox.BoundaryFailure
	if n >= c.cfg.MaxAttempts {
		tx.Delete(inbox.TableFailures, env.ID)
		tx.Put(inbox.TableDead, env.ID, inbox.Parked{Envelope: env, Reason: fmt.Sprintf("failed %d times: %v", n, f.err), At: now})
		b, parked = inbox.BoundaryCommit, true
	} else {
		tx.Put(inbox.TableFailures, env.ID, n)
	}
	if err := c.Gate.Cross(b, tx.Commit); err != nil {
		return false, fmt.Errorf("inbox: count failure of %s: %w", env.ID, err)
	}
	return parked, nil
}
