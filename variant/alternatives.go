package variant

import (
	"errors"
	"time"

	"outboxlab/alternatives/cdc"
	"outboxlab/alternatives/listen"
	"outboxlab/alternatives/skiplocked"
	"outboxlab/billing"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/store"
)

// ListenToYourself is the correct alternative for a service without a
// transactional database (chapter 004): publish the event first, then consume
// it yourself, like any other receiver, and store the change only then.
// The service's listener is an idempotent, ordered consumer of the
// service's own subscription; it runs where the relay would.
func ListenToYourself() Variant {
	return Variant{
		Name:              "listen-to-yourself",
		Summary:           lang.Text{EN: "publishes first, then consumes its own event to store the change", DE: "veröffentlicht zuerst und konsumiert dann das eigene Ereignis, um die Änderung zu speichern"},
		Chapter:           "004 \"sendet der Dienst die Änderung zuerst als Nachricht ... und liest sie wie jeder andere Empfänger wieder\"",
		RelayRole:         listenerRole,
		RelaySubscription: listen.Subscription,
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
		NewService: func(env Env) (Service, error) {
			return &listen.Service{DB: env.OrderDB, Broker: env.Broker, Self: env.Broker, Gate: env.Gate, Clock: env.Clock, IDs: env.IDs, Owner: env.Owner}, nil
		},
		NewRelay: func(env Env) (Relay, error) {
			// The inbox's code in the relay's place: its crash points
			// are the listener's ("listener.commit", AsListener).
			gate := asProcess{Gate: env.Gate, process: listenerRole}
			c, err := inbox.NewConsumer(inbox.DefaultConfig(env.Owner, listen.Subscription),
				inbox.Deps{DB: env.OrderDB, Broker: env.Broker, Gate: gate, Clock: env.Clock, Effect: listen.StoreOrder})
			if err != nil {
				return nil, err
			}
			return listener{Consumer: c, env: env}, nil
		},
		NewConsumer: NewBillingConsumer,
	}
}

// listener runs the service's own consumer in the relay's place.
type listener struct {
	*inbox.Consumer
	env Env
}

func (listener) Recover() error { return nil }

func (l listener) NextWake() (time.Time, bool) {
	return l.env.Broker.NextAvailable(listen.Subscription)
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

// CDC is the correct alternative to a polling relay (chapters 003, 004): a
// connector that tails the order database's commit log from a durable
// offset and publishes every outbox row inserted.
func CDC() Variant {
	return Variant{
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
			return errors.Join(InstallAll(orderDB, billingDB), cdc.Install(orderDB))
		},
		NewService: func(env Env) (Service, error) {
			return &cdc.Service{DB: env.OrderDB, Gate: env.Gate, Clock: env.Clock, IDs: env.IDs, Owner: env.Owner}, nil
		},
		NewRelay: func(env Env) (Relay, error) {
			return CDCRelay{&cdc.Relay{DB: env.OrderDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Owner: env.Owner,
				Config: outbox.DefaultConfig(env.Owner)}}, nil
		},
		NewConsumer: NewBillingConsumer,
	}
}

// CDCRelay is the CDC connector as a Relay that shows the lab the dead
// letters it keeps in its own table (DeadLetterKeeper).
type CDCRelay struct{ *cdc.Relay }

// DeadLetters implements DeadLetterKeeper.
func (r CDCRelay) DeadLetters() []DeadLetter {
	var out []DeadLetter
	for _, m := range store.Values[outbox.Message](r.DB, cdc.TableDead) {
		out = append(out, DeadLetter{Where: lang.Text{EN: "the CDC relay's dead-letter table", DE: "der Dead-Letter-Tabelle des CDC-Relays"}, MessageID: m.ID,
			AggregateID: m.Event.AggregateID, Sequence: m.Event.Sequence, Reason: m.LastError})
	}
	return out
}

// SkipLockedTx is chapter 003's relay as the chapter writes it (package
// skiplocked): one transaction per batch holds its rows locked FOR UPDATE
// SKIP LOCKED across the publish and marks them processed before it
// commits. The lock keeps two relays from publishing one row at once, and
// a crash frees it with the transaction. The chapter's code writes no
// attempts and no error, and retries a failed batch at the next poll: no
// backoff, no limit, no dead letter.
func SkipLockedTx() Variant {
	return Variant{
		Name:    "skip-locked-tx",
		Summary: lang.Text{EN: "chapter 003's relay: one transaction holds SKIP LOCKED row locks across the publish; no backoff, no limit, no dead letter", DE: "das Relay aus Kapitel 003: eine Transaktion hält SKIP-LOCKED-Zeilensperren über das Senden hinweg; kein Backoff, keine Grenze, kein Dead Letter"},
		Chapter: "003 \"Den Relay-Prozess bauen\"",
		Expect: map[string]Outcome{
			// A failed publish is retried at every poll, 500 ms apart,
			// for as long as the broker is down.
			"broker-outage":  Storm,
			"outage-backlog": Storm,
			"stall-release":  Storm,
			// Refused for good, retried for ever: no dead letter.
			"rejected": Stuck,
			// SKIP LOCKED skips a row another relay holds locked, and
			// takes the aggregate's next row, which nobody holds: with
			// one relay frozen, paused or restarting holding o-2#1,
			// the other sends o-2#2 first. Row locks keep two relays
			// off one row, not an aggregate's rows in order (at
			// stall-outage, the storm of retries too).
			"stall":         OutOfOrder,
			"stall-outage":  OutOfOrder,
			"clock-skew":    OutOfOrder,
			"relay-restart": OutOfOrder,
		},
		Install:    InstallAll,
		NewService: NewOutboxService,
		NewRelay: func(env Env) (Relay, error) {
			return skiplocked.New(env.OrderDB, env.Broker, env.Gate, env.DBClock, env.Owner), nil
		},
		NewConsumer: NewBillingConsumer,
	}
}
