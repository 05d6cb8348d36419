// Package legacycdc is chapter 004's last alternative that is not an
// outbox: "Der Schadendienst ist ein Altsystem, das nicht geändert werden
// darf." The service writes its orders table and nothing else, as it
// always did; a connector reads the changed rows from the database's log
// (package cdc's connector, publishing rows instead of outbox messages)
// and billing gets table rows instead of events: it must know the orders
// table's structure and find out what changed by comparing each row with
// what it applied before. Nothing in the service changes, and nothing is
// lost; the price is billing's coupling to another service's table.
package legacycdc

import (
	"fmt"
	"time"

	"outboxlab/billing"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/store"
)

// Clock tells the current time.
type Clock interface{ Now() time.Time }

// Service is the legacy order service: one transaction that writes the
// order, no outbox, no events.
type Service struct {
	DB    *store.DB
	Gate  effect.Gate
	Clock Clock
	Owner string
}

// Handle runs one use case as the legacy system always has.
func (s *Service) Handle(c orders.Command) error {
	tx := s.DB.Begin(s.Owner)
	defer tx.Rollback()
	if _, err := orders.Decide(tx, c, s.Clock.Now()); err != nil {
		return err
	}
	if err := s.Gate.Cross(orders.BoundaryCommit, tx.Commit); err != nil {
		return fmt.Errorf("legacy: %s: %w", c, err)
	}
	return nil
}

// Rows returns the orders rows a commit changed, as the connector
// publishes them: one message per row version, its id made of the order
// and the version, so that a row sent again is the same message.
func Rows(c store.Commit) []outbox.Message {
	var out []outbox.Message
	for _, ch := range c.Changes {
		o, ok := ch.Value.(domain.Order)
		if !ok || ch.Table != orders.Table || ch.Deleted {
			continue
		}
		rec, err := domain.Encode(domain.RowOf(o))
		if err != nil {
			continue // an order that does not encode is no row a reader could use
		}
		out = append(out, outbox.Message{Key: ch.Key, ID: fmt.Sprintf("row-%s-v%d", o.ID, o.Version), Event: rec, Status: outbox.Pending})
	}
	return out
}

// Bill is billing's effect for a row of the orders table: what changed is
// read from the difference to the account billing keeps (version 1 is the
// order's acceptance, a CANCELLED status its cancel, a new total an
// amendment by the difference), then billed as billing bills events.
func Bill(tx *store.Tx, e domain.Event, messageID string, now time.Time) error {
	row, ok := e.(domain.OrderRow)
	if !ok {
		return fmt.Errorf("legacy billing: want a row of the orders table, got %s", e.EventType())
	}
	var acc billing.Account
	if v, ok := tx.Get(billing.TableAccounts, row.ID); ok {
		acc = v.(billing.Account)
	}
	var change domain.Event
	switch {
	case row.Version == 1:
		change = domain.OrderAccepted{OrderID: row.ID, Sequence: 1, Total: row.Total, AcceptedAt: row.UpdatedAt}
	case row.Status == domain.Cancelled:
		change = domain.OrderCancelled{OrderID: row.ID, Sequence: row.Version, CancelledAt: row.UpdatedAt}
	default:
		diff := domain.Money{Minor: row.Total.Minor - acc.Billed.Minor, Currency: row.Total.Currency}
		change = domain.OrderAmended{OrderID: row.ID, Sequence: row.Version, Amount: diff, AmendedAt: row.UpdatedAt}
	}
	return billing.ApplyEffect(tx, change, messageID, now)
}
