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
	return consumerMistake("max-version-only", lang.Text{EN: "keeps only the highest version, skips gaps", DE: "speichert nur die höchste Version, überspringt Lücken"},
		"001 \"Einfach nur die höchste Version zu speichern reicht nicht\"",
		map[string]variant.Outcome{
			"reorder":          variant.Lost,
			"poison":           variant.Lost,
			"unknown-contract": variant.Lost, // a later event applied while one was put aside: that one is skipped as old
			"wrong-currency":   variant.Lost, // the amendment applied before the invoice, which is then skipped as old
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
