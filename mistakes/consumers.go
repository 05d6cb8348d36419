package mistakes

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
	"outboxlab/variant"
)

// NonIdempotentConsumer applies every delivery it receives: no inbox, no
// sequence numbers.
//
// WRONG: the outbox delivers at least once, never exactly once. A relay that
// dies after the send, a lost acknowledgement, a duplicate from the broker or
// a consumer that dies before its ack all deliver a message twice, and this
// consumer bills twice. Without sequence numbers it also applies events in
// whatever order they arrive.
//
// Chapter 000, section 7 and the "Merksatz" of section 6; chapter 004, typical
// mistakes ("Doppelte Auszahlung").
func NonIdempotentConsumer() variant.Variant {
	return consumerMistake("non-idempotent-consumer", "no inbox: applies every delivery it receives",
		"000 sections 6-7, 004 \"Doppelte Auszahlung\"",
		map[string]check.Outcome{
			"relay.after-send":       check.Duplicate,
			"relay.before-mark":      check.Duplicate, // sent, the mark not committed: sent again
			"consumer.after-commit":  check.Duplicate,
			"publish-timeout-stored": check.Duplicate,
			"stall":                  check.Duplicate, // the stale relay sends again
			"duplicate-delivery":     check.Duplicate,
			"reorder":                check.OutOfOrder, // no sequence numbers either
			"poison":                 check.OutOfOrder, // the parked first event is applied last
		},
		func(c *brokenConsumer, env broker.Envelope, e domain.Event) error {
			tx := c.env.BillingDB.Begin(c.env.Owner)
			defer tx.Rollback()
			if err := billing.ApplyEffect(tx, e, env.ID, c.env.Clock.Now()); err != nil {
				return err
			}
			return c.env.Gate.Cross(inbox.BoundaryCommit, tx.Commit)
		})
}

// BoundaryRecordProcessed is dedup-outside-tx's second commit, the one that
// records the message id.
var BoundaryRecordProcessed = effect.Boundary{Process: "consumer", Effect: "record-processed"}

// DedupOutsideTx checks an inbox, but writes the effect and the processed id
// in two separate transactions.
//
// WRONG: deduplication is only as good as its atomicity with the effect. If
// the consumer dies after committing the effect and before recording the id,
// the redelivered message is not recognised and is applied again: a new
// dual-write problem on the consumer side. Like unordered-consumer, it
// applies events in arrival order.
//
// Chapter 000, section 7 ("Sonst entsteht ein neues Dual-Write-Problem auf
// Consumer-Seite"); chapter 003 (check and write in one transaction).
func DedupOutsideTx() variant.Variant {
	return consumerMistake("dedup-outside-tx", "records the processed id in a separate step from the effect",
		"000 section 7 \"ein neues Dual-Write-Problem auf Consumer-Seite\"",
		map[string]check.Outcome{
			"consumer.after-commit": check.Duplicate,
			"reorder":               check.OutOfOrder,
			"poison":                check.OutOfOrder,
		},
		func(c *brokenConsumer, env broker.Envelope, e domain.Event) error {
			now := c.env.Clock.Now()
			if _, done := c.env.BillingDB.Get(inbox.TableProcessed, env.ID); done {
				return nil
			}
			tx := c.env.BillingDB.Begin(c.env.Owner)
			defer tx.Rollback()
			if err := billing.ApplyEffect(tx, e, env.ID, now); err != nil {
				return err
			}
			if err := c.env.Gate.Cross(inbox.BoundaryCommit, tx.Commit); err != nil {
				return err
			}
			// The effect is committed; the proof that it was is not yet.
			tx2 := c.env.BillingDB.Begin(c.env.Owner)
			defer tx2.Rollback()
			if err := tx2.Insert(inbox.TableProcessed, env.ID, inbox.Processed{MessageID: env.ID, At: now}); err != nil {
				return err
			}
			return c.env.Gate.Cross(BoundaryRecordProcessed, tx2.Commit)
		})
}

// UnorderedConsumer is idempotent but applies events in arrival order.
//
// WRONG: order per aggregate is a property of the events, not of the
// transport. When the broker or parallel relays swap an order's "accepted"
// and "cancelled", this consumer restores a stale state: a cancelled order
// is billed again.
//
// Chapter 001 ("Reihenfolge pro Geschäftsobjekt statt globale Reihenfolge").
func UnorderedConsumer() variant.Variant {
	return consumerMistake("unordered-consumer", "idempotent, but applies events in arrival order",
		"001 \"Reihenfolge pro Geschäftsobjekt\"",
		map[string]check.Outcome{
			"reorder": check.OutOfOrder,
			"poison":  check.OutOfOrder,
		},
		func(c *brokenConsumer, env broker.Envelope, e domain.Event) error {
			tx := c.env.BillingDB.Begin(c.env.Owner)
			defer tx.Rollback()
			if _, done := tx.Get(inbox.TableProcessed, env.ID); done {
				return nil
			}
			if err := billing.ApplyEffect(tx, e, env.ID, c.env.Clock.Now()); err != nil {
				return err
			}
			if err := tx.Insert(inbox.TableProcessed, env.ID, inbox.Processed{MessageID: env.ID, At: c.env.Clock.Now()}); err != nil {
				return err
			}
			return c.env.Gate.Cross(inbox.BoundaryCommit, tx.Commit)
		})
}

// MaxVersionOnly remembers only the highest sequence number applied per
// order, and skips everything at or below it.
//
// WRONG: that tells duplicates and stale events apart from new ones, but not
// from missing ones. When #2 arrives before #1, it applies #2 and then
// discards #1 as "old", although #1 had a business effect of its own (here:
// the invoice itself).
//
// Chapter 001 ("Einfach nur die höchste Version zu speichern reicht nicht, wenn
// übersprungene Ereignisse eigenständige Geschäftswirkungen tragen.").
func MaxVersionOnly() variant.Variant {
	return consumerMistake("max-version-only", "keeps only the highest version, skips gaps",
		"001 \"Einfach nur die höchste Version zu speichern reicht nicht\"",
		map[string]check.Outcome{
			"reorder": check.Lost,
			"poison":  check.Lost,
		},
		func(c *brokenConsumer, env broker.Envelope, e domain.Event) error {
			tx := c.env.BillingDB.Begin(c.env.Owner)
			defer tx.Rollback()
			if e.Seq() <= inbox.LoadApplied(tx, e.AggregateID()) {
				return nil // "old": but it may never have been applied
			}
			if err := billing.ApplyEffect(tx, e, env.ID, c.env.Clock.Now()); err != nil {
				return err
			}
			inbox.SetApplied(tx, e.AggregateID(), e.Seq())
			return c.env.Gate.Cross(inbox.BoundaryCommit, tx.Commit)
		})
}

// consumerMistake builds a variant with the reference service and relay
// and a broken consumer.
func consumerMistake(name, summary, chapter string, expect map[string]check.Outcome, apply applyFunc) variant.Variant {
	return variant.Variant{
		Name: name, Summary: summary, Chapter: chapter, Expect: expect,
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay:   variant.NewOutboxRelay,
		NewConsumer: func(env variant.Env) (variant.Consumer, error) {
			return &brokenConsumer{env: env, apply: apply}, nil
		},
	}
}

// applyFunc is what a broken consumer does with one decoded delivery.
type applyFunc func(c *brokenConsumer, env broker.Envelope, e domain.Event) error

// brokenConsumer is the frame the consumer mistakes share: receive, decode,
// apply (the mistake), acknowledge. A message it cannot decode is parked as
// a dead letter at once, so that poison is handled the same way in every
// mistake and only the mistake itself differs.
type brokenConsumer struct {
	env   variant.Env
	apply applyFunc
}

func (c *brokenConsumer) Step() (bool, error) {
	d, ok := c.env.Broker.Receive(variant.Subscription)
	if !ok {
		return false, nil
	}
	e, err := domain.Decode(d.Envelope.Event)
	if err != nil {
		err = c.park(d.Envelope, err, c.env.Clock.Now())
	} else {
		err = c.apply(c, d.Envelope, e)
	}
	if err != nil {
		return true, fmt.Errorf("%s: %w", d.Envelope.ID, err)
	}
	err = c.env.Gate.Cross(inbox.BoundaryAck, func() error { return c.env.Broker.Ack(variant.Subscription, d.Tag) })
	return true, err
}

func (c *brokenConsumer) park(env broker.Envelope, cause error, now time.Time) error {
	tx := c.env.BillingDB.Begin(c.env.Owner)
	defer tx.Rollback()
	tx.Put(inbox.TableDead, env.ID, inbox.Parked{Envelope: env, Reason: cause.Error(), At: now})
	return c.env.Gate.Cross(inbox.BoundaryCommit, tx.Commit)
}

// ReplayDeadLetters asks the broker for the originals of the dead letters.
func (c *brokenConsumer) ReplayDeadLetters() (int, error) {
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
