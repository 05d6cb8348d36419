package listen

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/orders"
	"outboxlab/store"
)

// Subscription is the order service's subscription to its own events.
const Subscription = "orders-self"

// BoundaryPublish is the service's one durable effect: the publish. Every
// service that publishes itself crosses it (the mistakes dual-write and
// publish-first too): one boundary, service.after-publish.
var BoundaryPublish = effect.Boundary{Process: "service", Effect: "publish", Kind: effect.Send}

// Clock tells the current time.
type Clock interface{ Now() time.Time }

// IDs draws message ids.
type IDs interface{ NewID() string }

// ErrBusy means the service's own listener has not stored the order's last
// change yet; the client may try again.
var ErrBusy = errors.New("the order's last change is not stored yet: try again")

// Lag tells whether a subscriber has a message of an aggregate it has not
// acknowledged (broker.Broker.Holds).
type Lag interface {
	Holds(subscription, aggregateID string) (bool, error)
}

// Service decides on a command from the state its listener has stored, and
// publishes the resulting event. It writes nothing itself.
type Service struct {
	DB     *store.DB
	Broker broker.Publisher
	// Self is the broker's view of the service's own subscription.
	Self  Lag
	Gate  effect.Gate
	Clock Clock
	IDs   IDs
	Owner string
}

// Handle publishes the event of command c. The order changes only when the
// service's own listener consumes the event (StoreOrder).
//
// It decides on the latest order only: while an event of the order is on
// its way to the service's own listener, or the listener holds one (parked
// behind a gap, or a dead letter), the stored order is behind what the
// service published, and a decision on it would publish the same sequence
// number again, whose event the listener drops as one it already applied,
// after the client was told the command succeeded. Then it answers ErrBusy
// instead.
func (s *Service) Handle(c orders.Command) error {
	behind, err := s.behind(c.OrderID)
	if err != nil {
		return fmt.Errorf("listen: %s: %w", c, err)
	}
	if behind {
		return fmt.Errorf("listen: %s: %w", c, ErrBusy)
	}
	tx := s.DB.Begin(s.Owner)
	defer tx.Rollback() // a decision only: the listener stores the change
	event, err := orders.Decide(tx, c, s.Clock.Now())
	if err != nil {
		return err
	}
	rec, err := domain.Encode(event)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	msg := broker.Envelope{ID: s.IDs.NewID(), Event: rec}
	if err := s.Gate.Cross(BoundaryPublish, func() error { return s.Broker.Publish(msg) }); err != nil {
		return fmt.Errorf("listen: %s: %w", c, err)
	}
	return nil
}

// behind reports whether the stored order lags behind an event of it that
// the service published.
func (s *Service) behind(orderID string) (bool, error) {
	held, err := s.Self.Holds(Subscription, orderID)
	if err != nil || held {
		return held, err
	}
	for _, p := range inbox.Held(s.DB) {
		if p.Envelope.Event.AggregateID == orderID {
			return true, nil
		}
	}
	return false, nil
}

// StoreOrder is the listener's effect (for inbox.Deps.Effect): it applies
// an order event to the stored order. The consumer around it deduplicates
// and orders the events, so the event's sequence is the order's next
// version.
func StoreOrder(tx *store.Tx, e domain.Event, _ string, _ time.Time) error {
	var cur domain.Order
	if v, ok := tx.Get(orders.Table, e.AggregateID()); ok {
		cur = v.(domain.Order)
	}
	var (
		next domain.Order
		err  error
	)
	switch ev := e.(type) {
	case domain.OrderAccepted:
		next, _, err = domain.AcceptOrder(ev.OrderID, ev.Total, ev.AcceptedAt)
	case domain.OrderAmended:
		next, _, err = cur.Amend(ev.Amount, ev.Note, ev.AmendedAt)
	case domain.OrderCancelled:
		next, _, err = cur.Cancel(ev.Reason, ev.CancelledAt)
	default:
		return fmt.Errorf("listen: no effect for %s", e.EventType())
	}
	if err != nil {
		return fmt.Errorf("listen: store %s#%d: %w", e.AggregateID(), e.Seq(), err)
	}
	if next.Version != e.Seq() {
		return fmt.Errorf("listen: store %s#%d: the order would be at version %d", e.AggregateID(), e.Seq(), next.Version)
	}
	tx.Put(orders.Table, next.ID, next)
	return nil
}
