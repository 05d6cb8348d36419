package legacycdc

import (
	"errors"

	"outboxlab/alternatives/cdc"
	"outboxlab/billing"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/store"
	"outboxlab/variant"
)

// Variant is chapter 004's change data capture of a legacy system's own
// tables (package legacycdc): the service writes its orders table and
// nothing else; the connector of variant cdc publishes each changed row;
// billing reads table rows, not events, and derives the change from the
// row before. Correct at every point, and billing is coupled to the
// orders table's structure.
func Variant() variant.Variant {
	return variant.Variant{
		Name:      "legacy-cdc",
		Summary:   lang.Text{EN: "an unchanged legacy service; a connector publishes the changed rows of its orders table, and billing must read them", DE: "ein unveränderter Altdienst; ein Konnektor veröffentlicht die geänderten Zeilen seiner Bestelltabelle, und Billing muss sie lesen"},
		Chapter:   "004 \"Der Schadendienst ist ein Altsystem\"",
		MaxRelays: 1, // one reader of the log, as in variant cdc
		// The connector of variant cdc, for the same reason: past a row
		// it gave up, the log goes on.
		PublishesPastDeadLetters: true,
		Install: func(orderDB, billingDB *store.DB) error {
			return errors.Join(orders.Install(orderDB), billing.Install(billingDB), cdc.Install(orderDB))
		},
		NewService: func(env variant.Env) (variant.Service, error) {
			return &Service{DB: env.OrderDB, Gate: env.Gate, Clock: env.Clock, Owner: env.Owner}, nil
		},
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			// Its dead letters are the connector's, shown through the
			// same port as variant cdc's: without it the lab found them
			// by the facts alone, hidden from every operator.
			return cdc.LabRelay{Relay: &cdc.Relay{DB: env.OrderDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Owner: env.Owner,
				Config: outbox.DefaultConfig(env.Owner), Messages: Rows}}, nil
		},
		NewConsumer: func(env variant.Env) (variant.Consumer, error) {
			return inbox.NewConsumer(inbox.DefaultConfig(env.Owner, variant.Subscription),
				inbox.Deps{DB: env.BillingDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Effect: Bill})
		},
	}
}
