package sqlitelab

import (
	"fmt"
	"time"

	"outboxlab/alternatives/listen"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/mistakes"
	"outboxlab/orders"
)

// service is the order service on SQLite.
type service struct {
	db     orderDB
	broker durableBroker // only the mistakes that publish themselves use it
	gate   effect.Gate
	owner  string
	// newID draws a message id no other message has.
	newID func() string
}

// handle is orders.Service.Handle in SQL: the changed order and its outbox
// message in one transaction, committed at the service's boundary. Nothing
// here talks to the broker.
func (s *service) handle(c orders.Command) error {
	now := time.Now().UTC()
	tx, err := beginOrders(s.db, s.owner)
	if err != nil {
		return err
	}
	defer tx.rollback()
	event, err := decide(tx, c, now)
	if err != nil {
		return err
	}
	if _, err := tx.appendMessage(s.newID(), event, now); err != nil {
		return fmt.Errorf("orders: %s: %w", c, err)
	}
	return s.gate.Cross(orders.BoundaryCommit, tx.commit)
}

// handleCDC is cdc.Service.Handle in SQL: the order and its outbox row in
// one transaction, the row deleted again before the commit. The WAL keeps
// the insert, which is all the CDC relay reads, and the table stays empty
// (as Debezium's outbox event router advises).
func (s *service) handleCDC(c orders.Command) error {
	now := time.Now().UTC()
	tx, err := beginOrders(s.db, s.owner)
	if err != nil {
		return err
	}
	defer tx.rollback()
	event, err := decide(tx, c, now)
	if err != nil {
		return err
	}
	m, err := tx.appendMessage(s.newID(), event, now)
	if err != nil {
		return fmt.Errorf("orders: %s: %w", c, err)
	}
	if err := tx.deleteMessage(m.Key); err != nil {
		return fmt.Errorf("orders: %s: %w", c, err)
	}
	return s.gate.Cross(orders.BoundaryCommit, tx.commit)
}

// handleDualWrite is mistakes.DualWrite: commit the order, then publish.
func (s *service) handleDualWrite(c orders.Command) error {
	now := time.Now().UTC()
	tx, err := beginOrders(s.db, s.owner)
	if err != nil {
		return err
	}
	defer tx.rollback()
	event, err := decide(tx, c, now)
	if err != nil {
		return err
	}
	if err := s.gate.Cross(orders.BoundaryCommit, tx.commit); err != nil {
		return err
	}
	// MISTAKE: the event goes to the broker after the commit, not into the
	// outbox inside it: a crash here loses it.
	return s.publish(event)
}

// handlePublishFirst is mistakes.PublishFirst: publish, then commit.
func (s *service) handlePublishFirst(c orders.Command) error {
	now := time.Now().UTC()
	tx, err := beginOrders(s.db, s.owner)
	if err != nil {
		return err
	}
	defer tx.rollback()
	event, err := decide(tx, c, now)
	if err != nil {
		return err
	}
	// MISTAKE: the world learns of the change before it is committed.
	if err := s.publish(event); err != nil {
		return err
	}
	return s.gate.Cross(orders.BoundaryCommit, tx.commit)
}

// handleSeparateTx is mistakes.SeparateTx: the order and its outbox row in
// two transactions.
func (s *service) handleSeparateTx(c orders.Command) error {
	now := time.Now().UTC()
	tx, err := beginOrders(s.db, s.owner)
	if err != nil {
		return err
	}
	defer tx.rollback()
	event, err := decide(tx, c, now)
	if err != nil {
		return err
	}
	// MISTAKE: the order commits alone; between the two commits the event
	// can be lost.
	if err := s.gate.Cross(orders.BoundaryCommit, tx.commit); err != nil {
		return err
	}
	tx, err = beginOrders(s.db, s.owner)
	if err != nil {
		return err
	}
	defer tx.rollback()
	if _, err := tx.appendMessage(s.newID(), event, now); err != nil {
		return fmt.Errorf("orders: %s: %w", c, err)
	}
	return s.gate.Cross(mistakes.BoundaryOutboxCommit, tx.commit)
}

// publish sends the event itself, at the boundary the simulator's mistakes
// use (service.after-publish).
func (s *service) publish(event domain.Event) error {
	rec, err := domain.Encode(event)
	if err != nil {
		return fmt.Errorf("orders: publish: %w", err)
	}
	env := broker.Envelope{ID: s.newID(), Event: rec}
	return s.gate.Cross(listen.BoundaryPublish, func() error { return s.broker.Publish(env) })
}

// decide is orders.Decide on the SQL transaction: load the order, apply the
// change, write the new order, return the event.
func decide(tx *orderTx, c orders.Command, now time.Time) (domain.Event, error) {
	cur, exists, err := tx.getOrder(c.OrderID)
	if err != nil {
		return nil, err
	}
	var (
		o     domain.Order
		event domain.Event
	)
	switch {
	case c.Kind == orders.Place && exists:
		return nil, fmt.Errorf("orders: place %s: %w", c.OrderID, orders.ErrExists)
	case c.Kind == orders.Place:
		o, event, err = domain.AcceptOrder(c.OrderID, c.Amount, now)
	case !exists:
		return nil, fmt.Errorf("orders: %s %s: %w", c.Kind, c.OrderID, orders.ErrNotFound)
	case c.Kind == orders.Amend:
		o, event, err = cur.Amend(c.Amount, c.Text, now)
	case c.Kind == orders.Cancel:
		o, event, err = cur.Cancel(c.Text, now)
	default:
		return nil, fmt.Errorf("orders: unknown command %q (valid: place, amend, cancel)", c.Kind)
	}
	if err != nil {
		return nil, fmt.Errorf("orders: %w", err)
	}
	return event, tx.putOrder(o)
}
