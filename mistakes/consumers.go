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
	"outboxlab/lab/check"
	"outboxlab/lab/variant"
	"outboxlab/store"
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
		"keine Inbox: wendet jede Zustellung an, die ankommt",
		"000 sections 6-7, 004 \"Doppelte Auszahlung\"",
		map[string]check.Outcome{
			"relay.after-send":       check.Duplicate,
			"relay.before-mark":      check.Duplicate, // sent, the mark not committed: sent again
			"consumer.after-commit":  check.Duplicate,
			"publish-timeout-stored": check.Duplicate,
			"stall":                  check.Duplicate, // the stale relay sends again
			"mark-conflict":          check.Duplicate, // relay-2 sends again what relay-1 sent
			"duplicate-delivery":     check.Duplicate,
			"reorder":                check.OutOfOrder, // no sequence numbers either
			"poison":                 check.OutOfOrder, // the parked first event is applied last
			"unknown-contract":       check.OutOfOrder, // the events put aside are applied last
			// The amendment that comes first is applied first, in the
			// wrong currency: only an account that has one refuses it.
			"wrong-currency": check.OutOfOrder,
		},
		func(c *consumer) {
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
	err = c.Gate.Cross(c.boundary(inbox.BoundaryCommit), tx.Commit)
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
		"trägt die verarbeitete ID in einem eigenen Schritt getrennt von der Wirkung ein",
		"000 section 7 \"ein neues Dual-Write-Problem auf Consumer-Seite\"",
		map[string]check.Outcome{
			"consumer.after-commit": check.Duplicate,
			"reorder":               check.OutOfOrder,
			"poison":                check.OutOfOrder,
			// It records the id of a message it put aside as processed
			// too, so the replay of that dead letter is skipped.
			"unknown-contract": check.Lost,
			"wrong-currency":   check.OutOfOrder, // the amendment first, in the wrong currency
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
	err = c.Gate.Cross(c.boundary(inbox.BoundaryCommit), tx.Commit)
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
		"idempotent, wendet Ereignisse aber in Ankunftsreihenfolge an",
		"001 \"Reihenfolge pro Geschäftsobjekt\"",
		map[string]check.Outcome{
			"reorder":          check.OutOfOrder,
			"poison":           check.OutOfOrder,
			"unknown-contract": check.OutOfOrder,
			"wrong-currency":   check.OutOfOrder, // the amendment first, in the wrong currency
		},
		func(c *consumer) {
			c.process = c.processUnordered
		})
}

// processUnordered is inbox.Consumer's process without the ordering. DO
// NOT COPY.
func (c *consumer) processUnordered(tx *store.Tx, env broker.Envelope, now time.Time) (bool, error) {
	event, err := domain.Decode(env.Event)
	switch {
	case errors.Is(err, domain.ErrUnknownEvent) || errors.Is(err, domain.ErrUnknownVersion):
		// A contract this code does not know: park it at once, never misread it.
		tx.Put(inbox.TableDead, env.ID, inbox.Parked{Envelope: env, Reason: err.Error(), At: now})
		return true, nil
	case err != nil:
		return false, failure{err}
	}
	// MISTAKE: applied in arrival order: no check against the sequence
	// applied before, no parking until a missing event arrives.
	if err := c.apply(tx, env.ID, event, now); err != nil {
		return false, failure{err}
	}
	return true, nil
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
		"speichert nur die höchste Version, überspringt Lücken",
		"001 \"Einfach nur die höchste Version zu speichern reicht nicht\"",
		map[string]check.Outcome{
			"reorder":          check.Lost,
			"poison":           check.Lost,
			"unknown-contract": check.Lost, // a later event applied while one was put aside: that one is skipped as old
			"wrong-currency":   check.Lost, // the amendment applied before the invoice, which is then skipped as old
		},
		func(c *consumer) {
			c.process = c.processMaxVersion
		})
}

// processMaxVersion is inbox.Consumer's process without parking. DO NOT
// COPY.
func (c *consumer) processMaxVersion(tx *store.Tx, env broker.Envelope, now time.Time) (bool, error) {
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
		// MISTAKE: no case for a gap: an event ahead of the next is applied
		// at once, and the one it overtook is "stale" when it arrives.
	}
	if err := c.apply(tx, env.ID, event, now); err != nil {
		return false, failure{err}
	}
	return true, c.drainParked(tx, event.AggregateID(), now)
}

// consumerMistake builds a variant with the reference service and relay
// and the reference consumer with one change, made by change.
func consumerMistake(name, summary, summaryDE, chapter string, expect map[string]check.Outcome, change func(*consumer)) variant.Variant {
	return variant.Variant{
		Name: name, Summary: summary, SummaryDE: summaryDE, Chapter: chapter, Expect: expect,
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

// boundary returns b for this consumer's role.
func (c *consumer) boundary(b effect.Boundary) effect.Boundary {
	b.Process = c.cfg.Role
	return b
}

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
	err := c.Gate.Cross(c.boundary(inbox.BoundaryAck), func() error { return c.Broker.Ack(c.cfg.Subscription, tag) })
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
	err = c.Gate.Cross(c.boundary(inbox.BoundaryCommit), tx.Commit)
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
	b := c.boundary(inbox.BoundaryFailure)
	if n >= c.cfg.MaxAttempts {
		tx.Delete(inbox.TableFailures, env.ID)
		tx.Put(inbox.TableDead, env.ID, inbox.Parked{Envelope: env, Reason: fmt.Sprintf("failed %d times: %v", n, f.err), At: now})
		b, parked = c.boundary(inbox.BoundaryCommit), true
	} else {
		tx.Put(inbox.TableFailures, env.ID, n)
	}
	if err := c.Gate.Cross(b, tx.Commit); err != nil {
		return false, fmt.Errorf("inbox: count failure of %s: %w", env.ID, err)
	}
	return parked, nil
}
