package variant

import (
	"errors"
	"fmt"

	"outboxlab/inbox"
	"outboxlab/insurance"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/store"
)

// Insurance is chapter 004's story on the reference's relay and inbox:
// the claims service ("Schadendienst", process "claims") releases a claim
// for payout and writes the message for the payment service into its
// outbox in the same transaction; the payment service ("Zahlungsdienst",
// process "payments") recognises a message by its id and prepares one
// payout per release. A workload's place command releases a claim
// ("release claim-4711 1250.00 EUR" in a story); amend and cancel are
// refused, as the claims service has no such use case. It is a story's
// variant, not a column of the matrix, whose workload is orders.
func Insurance() Variant {
	return Variant{
		Name:         "insurance",
		Summary:      lang.Text{EN: "chapter 004's claims service and payment service, on the reference's outbox, relay and inbox", DE: "der Schadendienst und der Zahlungsdienst aus Kapitel 004, mit Outbox, Relay und Inbox der Referenz"},
		Chapter:      "004",
		ServiceName:  "claims",
		ConsumerName: PaymentsSubscription,
		Install: func(claimsDB, paymentsDB *store.DB) error {
			return errors.Join(insurance.InstallClaims(claimsDB), insurance.InstallPayments(paymentsDB))
		},
		NewService: func(env Env) (Service, error) {
			return claimsService{&insurance.Service{DB: env.OrderDB, Gate: env.Gate, Clock: env.Clock, IDs: env.IDs, Owner: env.Owner}}, nil
		},
		RelayConfig: keepConfig,
		NewRelay:    NewOutboxRelay,
		NewConsumer: newPaymentService,
	}
}

// PaymentsSubscription is the broker subscription the payment service
// reads: its process's name (ConsumerName).
const PaymentsSubscription = "payments"

// newPaymentService builds the payment service: the reference consumer
// with the payout as its effect.
func newPaymentService(env Env) (Consumer, error) {
	return inbox.NewConsumer(inbox.DefaultConfig(env.Owner, PaymentsSubscription),
		inbox.Deps{DB: env.BillingDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Effect: insurance.PreparePayout})
}

// claimsService runs the workload's commands as the claims service's
// use case: place releases a claim.
type claimsService struct{ *insurance.Service }

// Handle releases cmd's claim for payout.
func (s claimsService) Handle(cmd orders.Command) error {
	if cmd.Kind != orders.Place {
		return fmt.Errorf("insurance: the claims service releases claims; it has no %s", cmd.Kind)
	}
	return s.Release(cmd.OrderID, cmd.Amount)
}
