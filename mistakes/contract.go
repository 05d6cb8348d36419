package mistakes

import (
	"fmt"
	"outboxlab/lab/lang"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/lab/check"
	"outboxlab/lab/variant"
	"outboxlab/orders"
	"outboxlab/outbox"
)

// NewIDOnResend is the reference relay with one change: it stamps every
// send with a fresh message id, as a relay does that builds the id when it
// sends instead of storing it with the outbox row.
//
// WRONG: a resend after a crash, a lost acknowledgement or a lease taken
// over is a new message to every consumer that deduplicates by id, and to
// the broker's own deduplication: the change is applied twice. An event's
// id is part of the outbox row, written in the business transaction.
//
// Chapter 001 ("Deshalb benötigen Ereignisse stabile Kennungen"); chapter
// 000 section 12, question 7 (message ids).
func NewIDOnResend() variant.Variant {
	return variant.Variant{
		Name:    "new-id-on-resend",
		Summary: lang.Text{EN: "gives every send a fresh message id: a resend is a new message to the consumer", DE: "gibt jedem Senden eine neue Nachrichten-ID: ein erneutes Senden ist für den Consumer eine neue Nachricht"},
		Chapter: "001 \"Deshalb benötigen Ereignisse stabile Kennungen\"",
		Expect: map[string]check.Outcome{
			"relay.after-send":       check.Duplicate,
			"relay.before-mark":      check.Duplicate,
			"publish-timeout-stored": check.Duplicate,
			"stall":                  check.Duplicate,
			"mark-conflict":          check.Duplicate,
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			r, err := outbox.NewRelay(outbox.DefaultConfig(env.Owner), outbox.Deps{
				DB: env.OrderDB, Broker: freshIDs{to: env.Broker, ids: env.IDs}, Gate: env.Gate, Clock: env.DBClock, Rand: env.Rand})
			return variant.AdaptRelay(r), err
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

// freshIDs is a broker client that gives every envelope a new id.
type freshIDs struct {
	to  broker.Publisher
	ids variant.IDs
}

// Publish sends e under a new id. DO NOT COPY.
func (f freshIDs) Publish(e broker.Envelope) error {
	// MISTAKE: the id is made at send time, not read from the outbox row.
	e.ID = fmt.Sprintf("%s-%s", e.ID, f.ids.NewID())
	return f.to.Publish(e)
}

// GrossToNet is the reference with a producer that changed what its
// contract means: OrderAccepted's and OrderAmended's amount used to be
// gross and is now net of 19 % VAT, under the same type, version and
// field names. Nothing fails to decode.
//
// WRONG: the signature is the same, the business is broken (chapter 000
// section 9: "Wenn amount früher Brutto und später Netto meint, ist die
// Signatur vielleicht gleich, aber die Fachlichkeit kaputt"). Billing
// bills net amounts for gross orders, in every run, without one error. A
// change of meaning is a new contract: a new version (or a new field) the
// consumer must learn first, and an old consumer puts an unknown version
// aside (the unknown-contract row) instead of misreading it.
func GrossToNet() variant.Variant {
	return variant.Variant{
		Name:        "gross-to-net",
		Summary:     lang.Text{EN: "its events carry net amounts under the contract that meant gross: same fields, another meaning", DE: "seine Ereignisse tragen Nettobeträge im Vertrag, der Brutto meinte: dieselben Felder, eine andere Bedeutung"},
		Chapter:     "000 section 9 \"Wenn amount früher Brutto und später Netto meint\"",
		Install:     variant.InstallAll,
		NewService:  func(env variant.Env) (variant.Service, error) { return &netService{newService(env)}, nil },
		NewRelay:    variant.NewOutboxRelay,
		NewConsumer: variant.NewBillingConsumer,
	}
}

type netService struct{ *service }

// Handle is orders.Service.Handle with the event's amount made net.
// DO NOT COPY.
func (s *netService) Handle(c orders.Command) error {
	now := s.Clock.Now()
	tx := s.DB.Begin(s.Owner)
	defer tx.Rollback()
	event, err := orders.Decide(tx, c, now)
	if err != nil {
		return err
	}
	// MISTAKE: the amount becomes net, the contract stays OrderAccepted v1.
	event = net(event)
	if _, err := outbox.Append(tx, s.IDs.NewID(), event, now); err != nil {
		return fmt.Errorf("orders: %s: %w", c, err)
	}
	if err := s.Gate.Cross(orders.BoundaryCommit, tx.Commit); err != nil {
		return fmt.Errorf("orders: %s: %w", c, err)
	}
	return nil
}

// net takes 19 % VAT out of an event's amount.
func net(e domain.Event) domain.Event {
	take := func(m domain.Money) domain.Money {
		return domain.Money{Minor: m.Minor * 100 / 119, Currency: m.Currency}
	}
	switch v := e.(type) {
	case domain.OrderAccepted:
		v.Total = take(v.Total)
		return v
	case domain.OrderAmended:
		v.Amount = take(v.Amount)
		return v
	}
	return e
}
