// Package ordering is an exercise (chapter 001, "Reihenfolge pro
// Geschäftsobjekt": "Bei einer Lücke muss der Empfänger warten"): the
// starter consumer is idempotent, with its inbox in the bill's transaction,
// but it bills events in the order they arrive. When o-1's amendment
// arrives before its acceptance, or the acceptance is a dead letter for a
// while, billing applies them in the wrong order. Make the consumer apply
// each order's events in sequence: an event that comes early waits, parked,
// until the one before it is applied; an event already applied or older is
// stale. A parked event billing cannot apply when its turn comes (an
// amount in another currency than its order's) becomes a dead letter.
//
//	go test ./exercises/ordering -exercise
//
// What it needs is in package inbox: LoadApplied and SetApplied keep the
// last sequence applied per order in the bill's transaction; TableParked
// holds what waits, under ParkedKey(order, seq), as inbox.Parked.
//
// You write handle, in starter.go: it bills one message. The rest of the
// consumer (receiving, acknowledging, Park for a message billing cannot
// read, Bill for billing's effect) is package exercises/frame, which the
// consumer exercises share.
package ordering

import (
	"outboxlab/exercises/frame"
	"outboxlab/lab/lang"
	"outboxlab/lab/variant"
)

// Variant is the exercise's variant: the reference service and relay with
// the learner's consumer. It claims to be correct.
func Variant() variant.Variant {
	v := variant.Outbox()
	v.Name = "exercise-ordering"
	v.Summary = lang.Text{EN: "the learner's consumer: inbox, bill, and order per order", DE: "der Consumer des Teilnehmers: Inbox, Rechnung und Reihenfolge je Bestellung"}
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		c := &consumer{}
		c.Consumer = frame.New(env, c.handle)
		return c, nil
	}
	return v
}

// consumer is the exercise's frame with the learner's handle (in
// starter.go; the reference solution's is in exercises/_solutions).
type consumer struct{ *frame.Consumer }
