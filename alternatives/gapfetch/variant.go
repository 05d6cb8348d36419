package gapfetch

import (
	"outboxlab/billing"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/variant"
)

// Variant is the reference whose consumer fetches the event a gap waits
// for instead of only waiting (chapter 001: "gezielt nachladen"; package
// gapfetch).
func Variant() variant.Variant {
	v := variant.Outbox()
	v.Name = "gap-fetch"
	v.Summary = lang.Text{EN: "the reference, its consumer asking for the event a gap waits for instead of only waiting", DE: "die Referenz, deren Consumer das Ereignis anfordert, auf das eine Lücke wartet, statt nur zu warten"}
	v.Chapter = "001 \"gezielt nachladen\""
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		c, err := inbox.NewConsumer(inbox.DefaultConfig(env.Owner, variant.Subscription),
			inbox.Deps{DB: env.BillingDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Effect: billing.ApplyEffect})
		if err != nil {
			return nil, err
		}
		return &Consumer{Consumer: c, Billing: env.BillingDB, Orders: env.OrderDB, Broker: env.Broker,
			Subscription: variant.Subscription, Owner: env.Owner}, nil
	}
	return v
}
