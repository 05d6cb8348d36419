package variant

import (
	"errors"

	"outboxlab/billing"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/store"
)

// Outbox is the reference: one transaction for the order and its outbox
// message; a relay that claims with a lease, sends, and marks SENT only after
// the broker's ack, retries with capped backoff, dead-letters after
// MaxAttempts and recovers its claims after a crash; and an idempotent,
// per-aggregate ordered consumer with its inbox in the effect's transaction.
func Outbox() Variant {
	return Variant{
		Name:        "outbox",
		Summary:     lang.Text{EN: "order and outbox row in one transaction, leased relay, idempotent ordered consumer", DE: "Bestellung und Outbox-Zeile in einer Transaktion, Relay mit Lease, idempotenter, ordnender Consumer"},
		Chapter:     "000 sections 3-8, 001, 003, 004",
		Policy:      ReferencePolicy(),
		Install:     InstallAll,
		NewService:  NewOutboxService,
		RelayConfig: keepConfig,
		NewRelay:    NewOutboxRelay,
		NewConsumer: NewBillingConsumer,
	}
}

// ReferencePolicy is what the reference declares: the relay's and the
// consumer's default configurations (outbox.DefaultConfig,
// inbox.DefaultConfig), the chapters' numbers.
func ReferencePolicy() Policy {
	return Policy{
		Relay:    RelayPolicyOf(outbox.DefaultConfig("relay")),
		Consumer: ConsumerPolicyOf(inbox.DefaultConfig("billing", Subscription)),
	}
}

// DeleteOnSend is the reference whose relay deletes a message once the
// broker confirmed it instead of marking it SENT (outbox.Config.DeleteOnSend;
// chapter 004: "kann der Versandprozess den Eintrag auch löschen"). It is
// correct at every point of the matrix; the outbox stays small, and the
// audit trail and the replay window of sent messages are gone. It is not a
// column of the matrix.
func DeleteOnSend() Variant {
	v := Outbox()
	v.Name = "outbox-delete-on-send"
	v.Summary = lang.Text{EN: "the reference, its relay deleting what the broker confirmed instead of marking it SENT", DE: "die Referenz, deren Relay löscht, was der Broker bestätigt hat, statt es als SENT zu markieren"}
	v.Chapter = "004"
	v.RelayConfig = func(c *outbox.Config) { c.DeleteOnSend = true }
	v.NewRelay = func(env Env) (Relay, error) { return adaptedReference(env, v.RelayConfig) }
	return v
}

// InstallAll creates the order service's tables (orders, outbox) and
// billing's tables.
func InstallAll(orderDB, billingDB *store.DB) error {
	return errors.Join(orders.Install(orderDB), outbox.Install(orderDB), billing.Install(billingDB))
}

// NewOutboxService builds the order service that writes order and outbox
// message in one transaction.
func NewOutboxService(env Env) (Service, error) {
	return &orders.Service{DB: env.OrderDB, Gate: env.Gate, Clock: env.Clock, IDs: env.IDs, Owner: env.Owner}, nil
}

// NewOutboxRelay builds the reference relay with the default configuration.
func NewOutboxRelay(env Env) (Relay, error) { return adaptedReference(env, nil) }

// adaptedReference is ReferenceRelay as a Relay, or nil and the error
// that kept it from being built (never an adapter of no relay).
func adaptedReference(env Env, change func(*outbox.Config)) (Relay, error) {
	r, err := ReferenceRelay(env, change)
	if err != nil {
		return nil, err
	}
	return AdaptRelay(r), nil
}

// ReferenceRelay builds the reference relay for env's process, with the
// default configuration changed by change (if not nil). Variants that
// reuse the reference relay start here.
func ReferenceRelay(env Env, change func(*outbox.Config)) (*outbox.Relay, error) {
	cfg := outbox.DefaultConfig(env.Owner)
	if change != nil {
		change(&cfg)
	}
	// The relay judges leases by the database's clock, as a relay does
	// that writes "lease_until = now() + interval '30 seconds'" in SQL.
	return outbox.NewRelay(cfg, outbox.Deps{DB: env.OrderDB, Broker: env.Broker, Gate: env.Gate, Clock: env.DBClock, Rand: env.Rand})
}

// NewBillingConsumer builds the reference consumer.
func NewBillingConsumer(env Env) (Consumer, error) {
	return inbox.NewConsumer(inbox.DefaultConfig(env.Owner, Subscription),
		inbox.Deps{DB: env.BillingDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Effect: billing.ApplyEffect})
}
