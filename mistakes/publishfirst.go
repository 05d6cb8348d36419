package mistakes

import (
	"fmt"

	"outboxlab/alternatives/listen"
	"outboxlab/lang"
	"outboxlab/orders"
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
		Summary: lang.Text{EN: "publishes to the broker, then commits the order", DE: "veröffentlicht an den Broker und committet danach die Bestellung"},
		Chapter: "004 \"Ohne Outbox hilft es auch nicht, die Nachricht zuerst zu senden\", 000 section 2",
		Expect: map[string]variant.Outcome{
			"service.after-publish":  variant.Phantom,
			"service.before-commit":  variant.Phantom, // the publish already happened
			"publish-timeout-stored": variant.Phantom, // stored, but the service saw a timeout and did not commit
			// The slow amendment is published, then loses its commit to the
			// cancel, which takes its sequence number: billing applies the
			// phantom amendment as #2 and skips the real cancel as a
			// duplicate of #2.
			"slow-commit": variant.Mismatch,
		},
		Install: variant.InstallAll,
		NewService: func(env variant.Env) (variant.Service, error) {
			return &publishFirstService{newService(env)}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

type publishFirstService struct{ *service }

// Handle is orders.Service.Handle with a publish before the commit where
// the outbox row was. DO NOT COPY.
func (s *publishFirstService) Handle(c orders.Command) error {
	now := s.Clock.Now()
	tx := s.DB.Begin(s.Owner)
	defer tx.Rollback()
	event, err := orders.Decide(tx, c, now)
	if err != nil {
		return err
	}
	// MISTAKE: the world learns of the change before it is committed; if
	// the commit below never happens, the world was told a lie.
	if err := s.publish(listen.BoundaryPublish, event); err != nil {
		return fmt.Errorf("orders: %s: %w", c, err)
	}
	if err := s.Gate.Cross(orders.BoundaryCommit, tx.Commit); err != nil {
		return fmt.Errorf("orders: %s: %w", c, err)
	}
	return nil
}
