// Package synccall is chapter 004's second alternative that is not an
// outbox: the service calls billing directly and stores the order only
// after billing confirmed. "Dann ruft der Schadendienst den Zahlungsdienst
// direkt auf und speichert die Freigabe erst nach der Bestätigung des
// Zahlungsdienstes." The clerk sees at once whether billing took it; no
// outbox, no relay, no broker.
//
// The call and the commit are two systems again. A service that dies
// after billing's confirmation and before its own commit leaves billing
// with an effect for an order that was never stored (PHANTOM), unless the
// clerk, who saw the error, gives the same command again: the chapter's
// remedy ("gibt den Fall noch einmal frei"), which works because billing
// recognises the repeated call by the order and its sequence number and
// applies nothing twice. The lab's workload does not repeat a command by
// itself: the matrix shows the phantom, the story sync-call the repeat.
package synccall

import (
	"fmt"
	"time"

	"outboxlab/billing"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/orders"
	"outboxlab/store"
)

// BoundaryCall is the call into billing, which commits billing's effect
// (service.after-call: billing confirmed, the order is not committed).
var BoundaryCall = effect.Boundary{Process: "service", Effect: "call", Kind: effect.Call}

// Clock tells the current time.
type Clock interface{ Now() time.Time }

// Service calls billing, then commits the order.
type Service struct {
	DB *store.DB
	// Billing is billing's database: the call runs billing's transaction
	// there, as billing's own endpoint would.
	Billing *store.DB
	Gate    effect.Gate
	Clock   Clock
	Owner   string
}

// Handle decides the command, has billing apply it, and commits the order.
func (s *Service) Handle(c orders.Command) error {
	now := s.Clock.Now()
	tx := s.DB.Begin(s.Owner)
	defer tx.Rollback()
	event, err := orders.Decide(tx, c, now)
	if err != nil {
		return err
	}
	if err := s.Gate.Cross(BoundaryCall, func() error { return s.call(event, now) }); err != nil {
		return fmt.Errorf("synccall: %s: billing: %w", c, err)
	}
	if err := s.Gate.Cross(orders.BoundaryCommit, tx.Commit); err != nil {
		return fmt.Errorf("synccall: %s: %w", c, err)
	}
	return nil
}

// call is billing's endpoint: it applies event once per order and
// sequence number, recognising a repeated call by them, in one
// transaction of billing's.
func (s *Service) call(event domain.Event, now time.Time) error {
	tx := s.Billing.Begin(s.Owner)
	defer tx.Rollback()
	key := fmt.Sprintf("%s#%d", event.AggregateID(), event.Seq())
	if _, done := tx.Get(inbox.TableProcessed, key); done {
		return nil // the clerk's repeat: already applied
	}
	if err := billing.ApplyEffect(tx, event, key, now); err != nil {
		return err
	}
	inbox.SetApplied(tx, event.AggregateID(), event.Seq())
	if err := tx.Insert(inbox.TableProcessed, key, inbox.Processed{MessageID: key, At: now}); err != nil {
		return err
	}
	return tx.Commit()
}
