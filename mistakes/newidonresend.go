package mistakes

import (
	"fmt"

	"outboxlab/broker"
	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/variant"
)

// NewIDOnResend is the reference relay with one change: it stamps every
// send with a fresh message id, as a relay does that builds the id when it
// sends instead of storing it with the outbox row.
//
// WRONG: a resend after a crash, a lost acknowledgement or a lease taken
// over is a new message to every consumer that deduplicates by id, and to
// the broker's own deduplication: the change is applied twice. An event's
// id is part of the outbox row, written in the business transaction.
//
// Chapter 001 ("Deshalb benötigen Ereignisse stabile Kennungen"); chapter
// 000 section 12, question 7 (message ids).
func NewIDOnResend() variant.Variant {
	return variant.Variant{
		Name:    "new-id-on-resend",
		Summary: lang.Text{EN: "gives every send a fresh message id: a resend is a new message to the consumer", DE: "gibt jedem Senden eine neue Nachrichten-ID: ein erneutes Senden ist für den Consumer eine neue Nachricht"},
		Chapter: "001 \"Deshalb benötigen Ereignisse stabile Kennungen\"",
		Expect: map[string]variant.Outcome{
			"relay.after-send":       variant.Duplicate,
			"relay.before-mark":      variant.Duplicate,
			"publish-timeout-stored": variant.Duplicate,
			"stall":                  variant.Duplicate,
			"mark-conflict":          variant.Duplicate,
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			r, err := outbox.NewRelay(outbox.DefaultConfig(env.Owner), outbox.Deps{
				DB: env.OrderDB, Broker: freshIDs{to: env.Broker, ids: env.IDs}, Gate: env.Gate, Clock: env.DBClock, Rand: env.Rand})
			if err != nil {
				return nil, err
			}
			return variant.AdaptRelay(r), nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

// freshIDs is a broker client that gives every envelope a new id.
type freshIDs struct {
	to  broker.Publisher
	ids variant.IDs
}

// Publish sends e under a new id. DO NOT COPY.
func (f freshIDs) Publish(e broker.Envelope) error {
	// MISTAKE: the id is made at send time, not read from the outbox row.
	e.ID = fmt.Sprintf("%s-%s", e.ID, f.ids.NewID())
	return f.to.Publish(e)
}
