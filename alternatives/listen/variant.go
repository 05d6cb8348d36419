package listen

import (
	"errors"
	"time"

	"outboxlab/billing"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/store"
	"outboxlab/variant"
)

// Variant is the correct alternative for a service without a
// transactional database (chapter 004): publish the event first, then consume
// it yourself, like any other receiver, and store the change only then.
// The service's listener is an idempotent, ordered consumer of the
// service's own subscription; it runs where the relay would.
func Variant() variant.Variant {
	return variant.Variant{
		Name:              "listen-to-yourself",
		Summary:           lang.Text{EN: "publishes first, then consumes its own event to store the change", DE: "veröffentlicht zuerst und konsumiert dann das eigene Ereignis, um die Änderung zu speichern"},
		Chapter:           "004 \"sendet der Dienst die Änderung zuerst als Nachricht ... und liest sie wie jeder andere Empfänger wieder\"",
		RelayRole:         listenerRole,
		RelaySubscription: Subscription,
		// One listener, as the chapter describes it. (The service decides
		// on an order only while none of its events is on its way, so two
		// competing listeners would have no two events of one order to
		// race on: TestADecisionWaitsForItsListener runs them.)
		MaxRelays: 1,
		// Two instances can both find an order idle at once and both
		// publish its next sequence number: the service's rule is one
		// instance's check (see MaxServices).
		MaxServices: 1,
		Install: func(orderDB, billingDB *store.DB) error {
			// The listener keeps its inbox and ordering state next to the orders.
			return errors.Join(orders.Install(orderDB), inbox.Install(orderDB), billing.Install(billingDB))
		},
		NewService: func(env variant.Env) (variant.Service, error) {
			return &Service{DB: env.OrderDB, Broker: env.Broker, Self: env.Broker, Gate: env.Gate, Clock: env.Clock, IDs: env.IDs, Owner: env.Owner}, nil
		},
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			// The inbox's code in the relay's place: its crash points
			// are the listener's ("listener.commit", AsListener).
			gate := asProcess{Gate: env.Gate, process: listenerRole}
			c, err := inbox.NewConsumer(inbox.DefaultConfig(env.Owner, Subscription),
				inbox.Deps{DB: env.OrderDB, Broker: env.Broker, Gate: gate, Clock: env.Clock, Effect: StoreOrder})
			if err != nil {
				return nil, err
			}
			return listener{Consumer: c, env: env}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

// listener runs the service's own consumer in the relay's place.
type listener struct {
	*inbox.Consumer
	env variant.Env
}

func (listener) Recover() error { return nil }

func (l listener) NextWake() (time.Time, bool) {
	return l.env.Broker.NextAvailable(Subscription)
}

// listenerRole is the process listen-to-yourself's listener runs as.
const listenerRole = "listener"

// AsListener returns b as listen-to-yourself's listener crosses it: the
// inbox's consumer runs in the relay's place, and its boundaries are the
// listener's (inbox.BoundaryCommit is "listener.commit" there).
func AsListener(b effect.Boundary) effect.Boundary {
	b.Process = listenerRole
	return b
}

// asProcess is a gate that names every boundary a component crosses as
// one of process: a component run in another process's role (the inbox's
// consumer as listen-to-yourself's listener) crashes at that role's points.
type asProcess struct {
	effect.Gate
	process string
}

// Cross implements effect.Gate.
func (g asProcess) Cross(b effect.Boundary, f func() error) error {
	b.Process = g.process
	return g.Gate.Cross(b, f)
}
