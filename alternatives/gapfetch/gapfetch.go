// Package gapfetch is chapter 001's second answer to a gap: "Bei einer
// Lücke muss der Empfänger warten, gezielt nachladen oder einen
// definierten Snapshot-Abgleich auslösen." The reference consumer waits:
// it parks an event that came early until the missing one arrives, however
// long that takes. This consumer does the same, and asks for the missing
// event at once: the order service tells it which message carries the
// order's next sequence number (its outbox, as an API would answer), and
// the broker delivers that message again from its log, now. The original
// comes later and is a duplicate the inbox absorbs. A missing event the
// broker does not hold yet (still in the outbox) cannot be fetched: the
// consumer waits for it as the reference does.
package gapfetch

import (
	"errors"

	"outboxlab/broker"
	"outboxlab/inbox"
	"outboxlab/outbox"
	"outboxlab/store"
)

// Consumer is the reference consumer that fetches the event a gap waits
// for.
type Consumer struct {
	*inbox.Consumer
	// Billing is the consumer's database; Orders is the order service's,
	// read as its API answers "which message is order o's event #n".
	Billing, Orders *store.DB
	Broker          interface {
		Redeliver(subscription, messageID string) error
	}
	Subscription string
	Owner        string
	// fetched are the gaps asked for in this incarnation: once each.
	fetched map[string]bool
}

// Step handles a delivery as the reference does and then asks for every
// event a parked one waits for.
func (c *Consumer) Step() (bool, error) {
	did, err := c.Consumer.Step()
	if err != nil || !did {
		return did, err
	}
	return true, c.fetchGaps()
}

// fetchGaps asks the broker to deliver again, now, the message each gap
// waits for, if the order service names one and the broker holds it.
func (c *Consumer) fetchGaps() error {
	if c.fetched == nil {
		c.fetched = map[string]bool{}
	}
	tx := c.Billing.Begin(c.Owner)
	defer tx.Rollback()
	var wanted []broker.Target
	for _, g := range inbox.ParkedByAggregate(tx) {
		t := broker.Target{AggregateID: g.AggregateID, Sequence: inbox.LoadApplied(tx, g.AggregateID) + 1}
		if !c.fetched[t.String()] {
			c.fetched[t.String()] = true
			wanted = append(wanted, t)
		}
	}
	for _, t := range wanted {
		id, ok := c.lookUp(t)
		if !ok {
			continue
		}
		if err := c.Broker.Redeliver(c.Subscription, id); err != nil && !errors.Is(err, broker.ErrUnknownMessage) {
			return err
		}
	}
	return nil
}

// lookUp is the order service's answer: the id of the message that
// carries t, if it is committed.
func (c *Consumer) lookUp(t broker.Target) (string, bool) {
	for _, m := range outbox.All(c.Orders) {
		if m.Event.AggregateID == t.AggregateID && m.Event.Sequence == t.Sequence {
			return m.ID, true
		}
	}
	return "", false
}
