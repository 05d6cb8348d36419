package mistakes

import (
	"fmt"

	"outboxlab/effect"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/variant"
)

// BoundaryOutboxCommit is the separate-tx service's second commit, the one
// that writes the outbox row.
var BoundaryOutboxCommit = effect.Boundary{Process: "service", Effect: "commit-outbox", Kind: effect.Commit}

// SeparateTx writes the order and its outbox row in two transactions.
//
// WRONG: the outbox row is only worth something because it commits together
// with the business change. If the process dies between the two commits,
// the order is accepted and no row says that an event is due: the event is
// lost, exactly as with a dual write.
//
// Chapter 004, typical mistakes ("Getrennte Transaktionen: ... ist Fall 4711
// freigegeben, aber in der Outbox steht kein Eintrag").
func SeparateTx() variant.Variant {
	return variant.Variant{
		Name:    "separate-tx",
		Summary: lang.Text{EN: "writes the order and the outbox row in two transactions", DE: "schreibt Bestellung und Outbox-Zeile in zwei Transaktionen"},
		Chapter: "004 \"Getrennte Transaktionen\"",
		Expect: map[string]variant.Outcome{
			"service.after-commit": variant.Lost,
		},
		Install: variant.InstallAll,
		NewService: func(env variant.Env) (variant.Service, error) {
			return &separateTxService{newService(env)}, nil
		},
		NewRelay:    variant.NewOutboxRelay,
		NewConsumer: variant.NewBillingConsumer,
	}
}

type separateTxService struct{ *service }

// Handle is orders.Service.Handle with the outbox row in a transaction of
// its own. DO NOT COPY.
func (s *separateTxService) Handle(c orders.Command) error {
	now := s.Clock.Now()
	tx := s.DB.Begin(s.Owner)
	defer tx.Rollback()
	event, err := orders.Decide(tx, c, now)
	if err != nil {
		return err
	}
	// MISTAKE: the order commits alone, and the outbox row in a second
	// transaction: between the two commits the event can be lost.
	if err := s.Gate.Cross(orders.BoundaryCommit, tx.Commit); err != nil {
		return fmt.Errorf("orders: %s: %w", c, err)
	}
	tx = s.DB.Begin(s.Owner)
	defer tx.Rollback()
	if _, err := outbox.Append(tx, s.IDs.NewID(), event, now); err != nil {
		return fmt.Errorf("orders: %s: %w", c, err)
	}
	if err := s.Gate.Cross(BoundaryOutboxCommit, tx.Commit); err != nil {
		return fmt.Errorf("orders: %s: %w", c, err)
	}
	return nil
}
