package twophase

import (
	"errors"

	"outboxlab/billing"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/store"
	"outboxlab/variant"
)

// Variant is chapter 004's two-phase commit (package twophase): the
// order and its event in one distributed transaction, no outbox, no relay;
// a coordinator in the relay's place resolves what a crash left in doubt.
// Correct at every point; while the broker is down the service cannot
// store anything, and says so to its client.
func Variant() variant.Variant {
	return variant.Variant{
		Name:      "two-phase-commit",
		Summary:   lang.Text{EN: "order and event in one two-phase commit over database and broker: no outbox, no delay, nothing stored while the broker is down", DE: "Bestellung und Ereignis in einem Two Phase Commit über Datenbank und Broker: keine Outbox, keine Verzögerung, nichts gespeichert, solange der Broker gestört ist"},
		Chapter:   "004 \"Two Phase Commit\"",
		RelayRole: "coordinator",
		// One coordinator resolves what is in doubt.
		MaxRelays: 1,
		// It does not publish past anything (PublishesPastDeadLetters
		// unset): it has no dead letters (a message the broker refuses
		// is never prepared, and the command fails), and its service
		// commits an order's earlier event still in doubt before it
		// prepares the next (Service), so that an order's events
		// reach the broker in their order.
		Install: func(orderDB, billingDB *store.DB) error {
			return errors.Join(orders.Install(orderDB), Install(orderDB), billing.Install(billingDB))
		},
		NewService: func(env variant.Env) (variant.Service, error) {
			return &Service{DB: env.OrderDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, IDs: env.IDs, Owner: env.Owner}, nil
		},
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			return &Coordinator{DB: env.OrderDB, Broker: env.Broker, Gate: env.Gate, Clock: env.DBClock}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}
