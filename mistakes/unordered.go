package mistakes

import (
	"errors"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/store"
	"outboxlab/variant"
)

// UnorderedConsumer is idempotent but applies events in arrival order.
//
// WRONG: order per aggregate is a property of the events, not of the
// transport. When the broker or parallel relays swap an order's "accepted"
// and "cancelled", this consumer restores a stale state: a cancelled order
// is billed again.
//
// Chapter 001 ("Reihenfolge pro Geschäftsobjekt statt globale Reihenfolge").
func UnorderedConsumer() variant.Variant {
	return consumerMistake("unordered-consumer", lang.Text{EN: "idempotent, but applies events in arrival order", DE: "idempotent, wendet Ereignisse aber in Ankunftsreihenfolge an"},
		"001 \"Reihenfolge pro Geschäftsobjekt\"",
		map[string]variant.Outcome{
			"reorder":          variant.OutOfOrder,
			"poison":           variant.OutOfOrder,
			"unknown-contract": variant.OutOfOrder,
			"wrong-currency":   variant.OutOfOrder, // the amendment first, in the wrong currency
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
