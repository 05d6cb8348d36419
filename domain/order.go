package domain

import (
	"errors"
	"fmt"
	"time"
)

// OrderStatus is the lifecycle state of an order.
type OrderStatus string

// The states an order can be in.
const (
	Accepted  OrderStatus = "ACCEPTED"
	Cancelled OrderStatus = "CANCELLED"
)

// ErrOrder is wrapped by every error about an invalid order change.
var ErrOrder = errors.New("invalid order change")

// Order is the aggregate the order service owns. It is a plain value: every
// change returns a new Order and leaves the receiver untouched, so an order
// can be stored in the transactional store without aliasing.
type Order struct {
	ID     string
	Status OrderStatus
	// Total is the sum of the accepted total and every amendment.
	Total Money
	// Version counts the changes applied to this order; it is the sequence
	// number of the last event the order produced.
	Version   int
	UpdatedAt time.Time
}

// AcceptOrder creates an order with a positive total. It is version 1.
func AcceptOrder(id string, total Money, at time.Time) (Order, OrderAccepted, error) {
	if id == "" {
		return Order{}, OrderAccepted{}, fmt.Errorf("%w: accept: empty order id", ErrOrder)
	}
	if !total.IsPositive() {
		return Order{}, OrderAccepted{}, fmt.Errorf("%w: accept %s: total %s must be positive", ErrOrder, id, total)
	}
	o := Order{ID: id, Status: Accepted, Total: total, Version: 1, UpdatedAt: at}
	return o, OrderAccepted{OrderID: id, Sequence: 1, Total: total, AcceptedAt: at}, nil
}

// Amend adds a positive amount to an accepted order, e.g. an extra item. Each
// amendment is an effect of its own downstream (an invoice line), so skipping
// one is visible.
func (o Order) Amend(amount Money, note string, at time.Time) (Order, OrderAmended, error) {
	if o.Status != Accepted {
		return o, OrderAmended{}, fmt.Errorf("%w: amend %s: order is %s", ErrOrder, o.ID, o.Status)
	}
	if !amount.IsPositive() {
		return o, OrderAmended{}, fmt.Errorf("%w: amend %s: amount %s must be positive", ErrOrder, o.ID, amount)
	}
	total, err := o.Total.Add(amount)
	if err != nil {
		return o, OrderAmended{}, fmt.Errorf("%w: amend %s: %w", ErrOrder, o.ID, err)
	}
	next := Order{ID: o.ID, Status: Accepted, Total: total, Version: o.Version + 1, UpdatedAt: at}
	return next, OrderAmended{OrderID: o.ID, Sequence: next.Version, Amount: amount, Note: note, AmendedAt: at}, nil
}

// Cancel cancels an accepted order. Cancelling twice is an error: the second
// request has nothing to say that the first did not.
func (o Order) Cancel(reason string, at time.Time) (Order, OrderCancelled, error) {
	if o.Status != Accepted {
		return o, OrderCancelled{}, fmt.Errorf("%w: cancel %s: order is %s", ErrOrder, o.ID, o.Status)
	}
	next := Order{ID: o.ID, Status: Cancelled, Total: o.Total, Version: o.Version + 1, UpdatedAt: at}
	return next, OrderCancelled{OrderID: o.ID, Sequence: next.Version, Reason: reason, CancelledAt: at}, nil
}
