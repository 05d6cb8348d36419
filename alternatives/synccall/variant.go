package synccall

import (
	"errors"

	"outboxlab/billing"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/store"
	"outboxlab/variant"
)

// Variant is chapter 004's synchronous call (package synccall): the
// service calls billing and commits the order after billing confirmed; no
// outbox, no relay, no broker. A service that dies between billing's
// confirmation and its own commit leaves a PHANTOM: the chapter's remedy
// is the clerk repeating the command (story sync-call).
func Variant() variant.Variant {
	return variant.Variant{
		Name:    "sync-call",
		Summary: lang.Text{EN: "calls billing directly and commits the order after billing confirmed: no outbox, no relay, no broker", DE: "ruft Billing direkt auf und committet die Bestellung nach der Bestätigung von Billing: keine Outbox, kein Relay, kein Broker"},
		Chapter: "004 \"ruft der Schadendienst den Zahlungsdienst direkt auf\"",
		Expect: map[string]variant.Outcome{
			// Billing confirmed, the order's commit never came: an
			// effect for a change never committed, until a clerk repeats.
			"service.before-commit": variant.Phantom,
		},
		Install: func(orderDB, billingDB *store.DB) error {
			return errors.Join(orders.Install(orderDB), billing.Install(billingDB))
		},
		NewService: func(env variant.Env) (variant.Service, error) {
			return &Service{DB: env.OrderDB, Billing: env.BillingDB, Gate: env.Gate, Clock: env.Clock, Owner: env.Owner}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}
