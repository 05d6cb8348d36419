package gapsnapshot

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

// Clock tells the current time.
type Clock interface{ Now() time.Time }

// Consumer is the reference consumer that reconciles a gap by the
// order's snapshot.
type Consumer struct {
	*inbox.Consumer
	// Billing is the consumer's database; Orders is the order service's,
	// read as its API answers "order o as it stands now".
	Billing, Orders *store.DB
	Gate            effect.Gate
	Clock           Clock
	Owner           string
}

// Step handles a delivery as the reference does and then reconciles
// every order an event waits for.
func (c *Consumer) Step() (bool, error) {
	did, err := c.Consumer.Step()
	if err != nil || !did {
		return did, err
	}
	return true, c.reconcileGaps()
}

// reconcileGaps reconciles, in one transaction of billing's, each order
// with a parked event to the order's snapshot.
func (c *Consumer) reconcileGaps() error {
	now := c.Clock.Now()
	tx := c.Billing.Begin(c.Owner)
	defer tx.Rollback()
	parked := inbox.ParkedByAggregate(tx) // by order
	if len(parked) == 0 {
		return nil
	}
	reconciled := false
	for _, p := range parked {
		id := p.AggregateID
		order, ok := orders.Get(c.Orders, id)
		if !ok || order.Version <= inbox.LoadApplied(tx, id) {
			continue
		}
		reconciled = true
		if err := reconcile(tx, order, now); err != nil {
			return err
		}
		inbox.SetApplied(tx, id, order.Version)
		for _, key := range p.Keys {
			tx.Delete(inbox.TableParked, key) // settled by the snapshot
		}
	}
	if !reconciled {
		return nil // nothing to commit: the snapshots are not ahead yet
	}
	return c.Gate.Cross(inbox.BoundaryCommit, tx.Commit)
}

// reconcile books the difference between billing's account and the
// order's snapshot as one entry: the invoice of an order billing has not
// seen, the credit of a cancelled one, else a line of the difference.
func reconcile(tx *store.Tx, order domain.Order, now time.Time) error {
	acc := billing.LoadAccount(tx, order.ID)
	id := fmt.Sprintf("snapshot %s v%d", order.ID, order.Version)
	var event domain.Event
	switch {
	case order.Status == domain.Cancelled:
		event = domain.OrderCancelled{OrderID: order.ID, Sequence: order.Version, Reason: "snapshot", CancelledAt: now}
	case acc.Billed.Currency == "":
		event = domain.OrderAccepted{OrderID: order.ID, Sequence: order.Version, Total: order.Total, AcceptedAt: now}
	default:
		diff := domain.Money{Minor: order.Total.Minor - acc.Billed.Minor, Currency: order.Total.Currency}
		event = domain.OrderAmended{OrderID: order.ID, Sequence: order.Version, Amount: diff, Note: "snapshot", AmendedAt: now}
	}
	return billing.ApplyEffect(tx, event, id, now)
}
