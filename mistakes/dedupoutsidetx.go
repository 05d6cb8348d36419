package mistakes

import (
	"errors"
	"fmt"

	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/store"
	"outboxlab/variant"
)

// BoundaryRecordProcessed is dedup-outside-tx's second commit, the one that
// records the message id.
var BoundaryRecordProcessed = effect.Boundary{Process: "consumer", Effect: "record-processed", Kind: effect.Commit}

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
	return consumerMistake("dedup-outside-tx", lang.Text{EN: "records the processed id in a separate step from the effect", DE: "trägt die verarbeitete ID in einem eigenen Schritt getrennt von der Wirkung ein"},
		"000 section 7 \"ein neues Dual-Write-Problem auf Consumer-Seite\"",
		map[string]variant.Outcome{
			"consumer.after-commit": variant.Duplicate,
			"reorder":               variant.OutOfOrder,
			"poison":                variant.OutOfOrder,
			// It records the id of a message it put aside as processed
			// too, so the replay of that dead letter is skipped.
			"unknown-contract": variant.Lost,
			"wrong-currency":   variant.OutOfOrder, // the amendment first, in the wrong currency
		},
		func(c *consumer) {
			c.handle, c.process, c.apply = c.handleThenRecord, c.processUnordered, c.applyWithoutInbox
		})
}

// handleThenRecord is inbox.Consumer's handle with the inbox row in a
// second transaction. DO NOT COPY.
func (c *consumer) handleThenRecord(env broker.Envelope) error {
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
	// MISTAKE: the effect is committed; the proof that it was is not yet.
	// A crash here and the redelivery is applied again.
	tx = c.DB.Begin(c.cfg.Owner)
	defer tx.Rollback()
	if err := tx.Insert(inbox.TableProcessed, env.ID, inbox.Processed{MessageID: env.ID, At: now}); err != nil {
		return err
	}
	return c.Gate.Cross(BoundaryRecordProcessed, tx.Commit)
}
