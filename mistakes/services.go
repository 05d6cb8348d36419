package mistakes

import (
	"fmt"

	"outboxlab/check"
	"outboxlab/effect"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/variant"
)

// PublishFirst publishes the event to the broker, then commits the order.
//
// WRONG: if the process dies, or the commit fails, after the publish, the
// downstream services act on an order that does not exist. Reversing the
// order of the dual write does not fix it; it only swaps which side is
// missing.
//
// Chapter 004 ("Ohne Outbox hilft es auch nicht, die Nachricht zuerst zu
// senden. Scheitert danach das Speichern, bereitet der Zahlungsdienst eine
// Auszahlung für einen Fall vor, der gar nicht freigegeben ist."); chapter 000
// section 2.
func PublishFirst() variant.Variant {
	return variant.Variant{
		Name:    "publish-first",
		Summary: "publishes to the broker, then commits the order",
		Chapter: "004 \"Ohne Outbox hilft es auch nicht, die Nachricht zuerst zu senden\", 000 section 2",
		Expect: map[string]check.Outcome{
			"service.after-publish":  check.Phantom,
			"service.before-commit":  check.Phantom, // the publish already happened
			"publish-timeout-stored": check.Phantom, // stored, but the service saw a timeout and did not commit
			// The slow amendment is published, then loses its commit to the
			// cancel, which takes its sequence number: billing applies the
			// phantom amendment as #2 and skips the real cancel as a
			// duplicate of #2.
			"slow-commit": check.Mismatch,
		},
		Install: variant.InstallAll,
		NewService: func(env variant.Env) (variant.Service, error) {
			return &publishFirstService{env: env}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

type publishFirstService struct{ env variant.Env }

// Handle publishes, then commits. DO NOT COPY.
func (s *publishFirstService) Handle(c orders.Command) error {
	env := s.env
	tx := env.OrderDB.Begin(env.Owner)
	defer tx.Rollback()
	event, err := orders.Decide(tx, c, env.Clock.Now())
	if err != nil {
		return err
	}
	// The world learns of the change before it is committed...
	if err := publish(env, BoundaryServicePublish, event); err != nil {
		return fmt.Errorf("publish-first: %s: %w", c, err)
	}
	// ...and if this commit never happens, the world was told a lie.
	if err := env.Gate.Cross(orders.BoundaryCommit, tx.Commit); err != nil {
		return fmt.Errorf("publish-first: %s: %w", c, err)
	}
	return nil
}

// BoundaryOutboxCommit is the separate-tx service's second commit, the one
// that writes the outbox row.
var BoundaryOutboxCommit = effect.Boundary{Process: "service", Effect: "commit-outbox"}

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
		Summary: "writes the order and the outbox row in two transactions",
		Chapter: "004 \"Getrennte Transaktionen\"",
		Expect: map[string]check.Outcome{
			"service.after-commit": check.Lost,
		},
		Install: variant.InstallAll,
		NewService: func(env variant.Env) (variant.Service, error) {
			return &separateTxService{env: env}, nil
		},
		NewRelay:    variant.NewOutboxRelay,
		NewConsumer: variant.NewBillingConsumer,
	}
}

type separateTxService struct{ env variant.Env }

// Handle commits the order, then the outbox row. DO NOT COPY.
func (s *separateTxService) Handle(c orders.Command) error {
	env := s.env
	now := env.Clock.Now()
	tx := env.OrderDB.Begin(env.Owner)
	defer tx.Rollback()
	event, err := orders.Decide(tx, c, now)
	if err != nil {
		return err
	}
	if err := env.Gate.Cross(orders.BoundaryCommit, tx.Commit); err != nil {
		return fmt.Errorf("separate-tx: %s: %w", c, err)
	}
	// A second transaction: everything between the two commits is a window
	// in which the event can be lost.
	tx2 := env.OrderDB.Begin(env.Owner)
	defer tx2.Rollback()
	if _, err := outbox.Append(tx2, env.IDs.NewID(), event, now); err != nil {
		return err
	}
	if err := env.Gate.Cross(BoundaryOutboxCommit, tx2.Commit); err != nil {
		return fmt.Errorf("separate-tx: %s: %w", c, err)
	}
	return nil
}
