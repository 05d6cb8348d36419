package mistakes

import (
	"fmt"

	"outboxlab/domain"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/variant"
)

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
