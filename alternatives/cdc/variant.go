package cdc

import (
	"errors"

	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/store"
	"outboxlab/variant"
)

// Variant is the correct alternative to a polling relay (chapters 003, 004): a
// connector that tails the order database's commit log from a durable
// offset and publishes every outbox row inserted.
func Variant() variant.Variant {
	return variant.Variant{
		Name:    "cdc",
		Summary: lang.Text{EN: "a relay that tails the commit log with a durable offset instead of polling", DE: "ein Relay, das dem Commit-Log mit einem dauerhaften Offset folgt, statt abzufragen"},
		Chapter: "003 \"Polling versus Change Data Capture\", 004 Debezium Outbox Event Router",
		// A replication slot has one reader: connectors side by side would
		// each send every change, and each retry it.
		MaxRelays: 1,
		// It reads the log commit by commit and retries the message it
		// is at, holding back everything after it; once it gives a
		// message up, its offset moves past it, and an aggregate's later
		// events go out past the dead letter: a log has no row to hold
		// them back by. Billing's gap handling holds them until the
		// operator's replay.
		PublishesPastDeadLetters: true,
		Install: func(orderDB, billingDB *store.DB) error {
			return errors.Join(variant.InstallAll(orderDB, billingDB), Install(orderDB))
		},
		NewService: func(env variant.Env) (variant.Service, error) {
			return &Service{DB: env.OrderDB, Gate: env.Gate, Clock: env.Clock, IDs: env.IDs, Owner: env.Owner}, nil
		},
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			return LabRelay{&Relay{DB: env.OrderDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Owner: env.Owner,
				Config: outbox.DefaultConfig(env.Owner)}}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

// LabRelay is the CDC connector as a variant.Relay that shows the lab the dead
// letters it keeps in its own table (DeadLetterKeeper).
type LabRelay struct{ *Relay }

// DeadLetters implements DeadLetterKeeper.
func (r LabRelay) DeadLetters() []variant.DeadLetter {
	var out []variant.DeadLetter
	for _, m := range store.Values[outbox.Message](r.DB, TableDead) {
		out = append(out, variant.DeadLetter{Where: lang.Text{EN: "the CDC relay's dead-letter table", DE: "der Dead-Letter-Tabelle des CDC-Relays"}, MessageID: m.ID,
			AggregateID: m.Event.AggregateID, Sequence: m.Event.Sequence, Reason: m.LastError})
	}
	return out
}
