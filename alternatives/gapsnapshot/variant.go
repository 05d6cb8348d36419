package gapsnapshot

import (
	"outboxlab/billing"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/variant"
)

// Variant is the reference whose consumer reconciles a gap by the
// order's snapshot (package gapsnapshot): chapter 001's "Snapshot-Abgleich".
// The account is right at once; the skipped event's own effect is folded
// into one adjustment, LOST as the event's effect.
func Variant() variant.Variant {
	v := variant.Outbox()
	v.Name = "gap-snapshot"
	v.Summary = lang.Text{EN: "the reference, its consumer reconciling a gap with the order's snapshot: the account is right at once, the skipped event's own effect is folded into one adjustment", DE: "die Referenz, deren Consumer eine Lücke mit dem Snapshot der Bestellung abgleicht: das Konto stimmt sofort, die eigene Wirkung des übersprungenen Ereignisses geht in einer Korrekturbuchung auf"}
	v.Chapter = "001 \"einen definierten Snapshot-Abgleich auslösen\""
	// Wherever an event comes before its predecessor (swapped, or the
	// predecessor parked as a dead letter or put aside as an unknown
	// contract), the snapshot settles both and the predecessor's own
	// effect is never booked.
	v.Expect = map[string]variant.Outcome{"reorder": variant.Lost, "poison": variant.Lost, "unknown-contract": variant.Lost, "wrong-currency": variant.Lost}
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		c, err := inbox.NewConsumer(inbox.DefaultConfig(env.Owner, variant.Subscription),
			inbox.Deps{DB: env.BillingDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Effect: billing.ApplyEffect})
		if err != nil {
			return nil, err
		}
		return &Consumer{Consumer: c, Billing: env.BillingDB, Orders: env.OrderDB, Gate: env.Gate, Clock: env.Clock, Owner: env.Owner}, nil
	}
	return v
}
