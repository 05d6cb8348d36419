package mistakes

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/store"
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
	return consumerMistake("non-idempotent-consumer", lang.Text{EN: "no inbox: applies every delivery it receives", DE: "keine Inbox: wendet jede Zustellung an, die ankommt"},
		"000 sections 6-7, 004 \"Doppelte Auszahlung\"",
		map[string]variant.Outcome{
			"relay.after-send":       variant.Duplicate,
			"relay.before-mark":      variant.Duplicate, // sent, the mark not committed: sent again
			"consumer.after-commit":  variant.Duplicate,
			"publish-timeout-stored": variant.Duplicate,
			"stall":                  variant.Duplicate, // the stale relay sends again
			"mark-conflict":          variant.Duplicate, // relay-2 sends again what relay-1 sent
			"duplicate-delivery":     variant.Duplicate,
			"reorder":                variant.OutOfOrder, // no sequence numbers either
			"poison":                 variant.OutOfOrder, // the parked first event is applied last
			"unknown-contract":       variant.OutOfOrder, // the events put aside are applied last
			// The amendment that comes first is applied first, in the
			// wrong currency: only an account that has one refuses it.
			"wrong-currency": variant.OutOfOrder,
		},
		func(c *consumer) {
			// MISTAKE: no inbox; and with it goes the per-order ordering,
			// since the applied sequence alone would deduplicate (a second
			// change that follows from the first: hence the OUT_OF_ORDER cells).
			c.handle, c.process, c.apply = c.handleWithoutInbox, c.processUnordered, c.applyWithoutInbox
		})
}

// handleWithoutInbox is inbox.Consumer's handle without the inbox check.
// DO NOT COPY.
func (c *consumer) handleWithoutInbox(env broker.Envelope) error {
	now := c.Clock.Now()
	tx := c.DB.Begin(c.cfg.Owner)
	defer tx.Rollback()
	// MISTAKE: no look into the inbox: a redelivery is applied again. (The
	// ordering goes too, see processUnordered: the applied sequence would
	// deduplicate on its own.)
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

// applyWithoutInbox is inbox.Consumer's apply without the inbox row. DO NOT
// COPY.
func (c *consumer) applyWithoutInbox(tx *store.Tx, messageID string, event domain.Event, now time.Time) error {
	if err := c.Effect(tx, event, messageID, now); err != nil {
		return err
	}
	inbox.SetApplied(tx, event.AggregateID(), event.Seq())
	// MISTAKE: no inbox row: nothing records that this message was applied.
	return nil
}
