package variant

import (
	"errors"

	"outboxlab/alternatives/cdc"
	"outboxlab/alternatives/gapfetch"
	"outboxlab/alternatives/gapsnapshot"
	"outboxlab/alternatives/legacycdc"
	"outboxlab/alternatives/synccall"
	"outboxlab/alternatives/twophase"
	"outboxlab/billing"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/store"
)

// TwoPhaseCommit is chapter 004's two-phase commit (package twophase): the
// order and its event in one distributed transaction, no outbox, no relay;
// a coordinator in the relay's place resolves what a crash left in doubt.
// Correct at every point; while the broker is down the service cannot
// store anything, and says so to its client.
func TwoPhaseCommit() Variant {
	return Variant{
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
		// prepares the next (twophase.Service), so that an order's events
		// reach the broker in their order.
		Install: func(orderDB, billingDB *store.DB) error {
			return errors.Join(orders.Install(orderDB), twophase.Install(orderDB), billing.Install(billingDB))
		},
		NewService: func(env Env) (Service, error) {
			return &twophase.Service{DB: env.OrderDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, IDs: env.IDs, Owner: env.Owner}, nil
		},
		NewRelay: func(env Env) (Relay, error) {
			return &twophase.Coordinator{DB: env.OrderDB, Broker: env.Broker, Gate: env.Gate, Clock: env.DBClock}, nil
		},
		NewConsumer: NewBillingConsumer,
	}
}

// SyncCall is chapter 004's synchronous call (package synccall): the
// service calls billing and commits the order after billing confirmed; no
// outbox, no relay, no broker. A service that dies between billing's
// confirmation and its own commit leaves a PHANTOM: the chapter's remedy
// is the clerk repeating the command (story sync-call).
func SyncCall() Variant {
	return Variant{
		Name:    "sync-call",
		Summary: lang.Text{EN: "calls billing directly and commits the order after billing confirmed: no outbox, no relay, no broker", DE: "ruft Billing direkt auf und committet die Bestellung nach der Bestätigung von Billing: keine Outbox, kein Relay, kein Broker"},
		Chapter: "004 \"ruft der Schadendienst den Zahlungsdienst direkt auf\"",
		Expect: map[string]Outcome{
			// Billing confirmed, the order's commit never came: an
			// effect for a change never committed, until a clerk repeats.
			"service.before-commit": Phantom,
		},
		Install: func(orderDB, billingDB *store.DB) error {
			return errors.Join(orders.Install(orderDB), billing.Install(billingDB))
		},
		NewService: func(env Env) (Service, error) {
			return &synccall.Service{DB: env.OrderDB, Billing: env.BillingDB, Gate: env.Gate, Clock: env.Clock, Owner: env.Owner}, nil
		},
		NewConsumer: NewBillingConsumer,
	}
}

// LegacyCDC is chapter 004's change data capture of a legacy system's own
// tables (package legacycdc): the service writes its orders table and
// nothing else; the connector of variant cdc publishes each changed row;
// billing reads table rows, not events, and derives the change from the
// row before. Correct at every point, and billing is coupled to the
// orders table's structure.
func LegacyCDC() Variant {
	return Variant{
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
		NewService: func(env Env) (Service, error) {
			return &legacycdc.Service{DB: env.OrderDB, Gate: env.Gate, Clock: env.Clock, Owner: env.Owner}, nil
		},
		NewRelay: func(env Env) (Relay, error) {
			// Its dead letters are the connector's, shown through the
			// same port as variant cdc's: without it the lab found them
			// by the facts alone, hidden from every operator.
			return CDCRelay{&cdc.Relay{DB: env.OrderDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Owner: env.Owner,
				Config: outbox.DefaultConfig(env.Owner), Messages: legacycdc.Rows}}, nil
		},
		NewConsumer: func(env Env) (Consumer, error) {
			return inbox.NewConsumer(inbox.DefaultConfig(env.Owner, Subscription),
				inbox.Deps{DB: env.BillingDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Effect: legacycdc.Bill})
		},
	}
}

// GapFetch is the reference whose consumer fetches the event a gap waits
// for instead of only waiting (chapter 001: "gezielt nachladen"; package
// gapfetch).
func GapFetch() Variant {
	v := Outbox()
	v.Name = "gap-fetch"
	v.Summary = lang.Text{EN: "the reference, its consumer asking for the event a gap waits for instead of only waiting", DE: "die Referenz, deren Consumer das Ereignis anfordert, auf das eine Lücke wartet, statt nur zu warten"}
	v.Chapter = "001 \"gezielt nachladen\""
	v.NewConsumer = func(env Env) (Consumer, error) {
		c, err := inbox.NewConsumer(inbox.DefaultConfig(env.Owner, Subscription),
			inbox.Deps{DB: env.BillingDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Effect: billing.ApplyEffect})
		if err != nil {
			return nil, err
		}
		return &gapfetch.Consumer{Consumer: c, Billing: env.BillingDB, Orders: env.OrderDB, Broker: env.Broker,
			Subscription: Subscription, Owner: env.Owner}, nil
	}
	return v
}

// GapSnapshot is the reference whose consumer reconciles a gap by the
// order's snapshot (package gapsnapshot): chapter 001's "Snapshot-Abgleich".
// The account is right at once; the skipped event's own effect is folded
// into one adjustment, LOST as the event's effect.
func GapSnapshot() Variant {
	v := Outbox()
	v.Name = "gap-snapshot"
	v.Summary = lang.Text{EN: "the reference, its consumer reconciling a gap with the order's snapshot: the account is right at once, the skipped event's own effect is folded into one adjustment", DE: "die Referenz, deren Consumer eine Lücke mit dem Snapshot der Bestellung abgleicht: das Konto stimmt sofort, die eigene Wirkung des übersprungenen Ereignisses geht in einer Korrekturbuchung auf"}
	v.Chapter = "001 \"einen definierten Snapshot-Abgleich auslösen\""
	// Wherever an event comes before its predecessor (swapped, or the
	// predecessor parked as a dead letter or put aside as an unknown
	// contract), the snapshot settles both and the predecessor's own
	// effect is never booked.
	v.Expect = map[string]Outcome{"reorder": Lost, "poison": Lost, "unknown-contract": Lost, "wrong-currency": Lost}
	v.NewConsumer = func(env Env) (Consumer, error) {
		c, err := inbox.NewConsumer(inbox.DefaultConfig(env.Owner, Subscription),
			inbox.Deps{DB: env.BillingDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Effect: billing.ApplyEffect})
		if err != nil {
			return nil, err
		}
		return &gapsnapshot.Consumer{Consumer: c, Billing: env.BillingDB, Orders: env.OrderDB, Gate: env.Gate, Clock: env.Clock, Owner: env.Owner}, nil
	}
	return v
}
