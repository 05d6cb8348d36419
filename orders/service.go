package orders

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/outbox"
	"outboxlab/store"
)

// Table is the name of the orders table.
const Table = "orders"

// BoundaryCommit is the service's one durable effect: the commit of the
// order change together with its outbox message (service.before-commit,
// service.after-commit).
var BoundaryCommit = effect.Boundary{Process: "service", Effect: "commit", Kind: effect.Commit}

// ErrNotFound means the order does not exist.
var ErrNotFound = errors.New("order not found")

// ErrExists means an order with that id was already placed.
var ErrExists = errors.New("order exists")

// Clock tells the service the current time.
type Clock interface{ Now() time.Time }

// IDs draws message ids; under the simulator they come from its seed.
type IDs interface{ NewID() string }

// Install creates the orders table in db.
func Install(db *store.DB) error {
	if err := db.CreateTable(Table); err != nil {
		return fmt.Errorf("orders: install: %w", err)
	}
	return nil
}

// Get reads a committed order from db.
func Get(db *store.DB, id string) (domain.Order, bool) {
	v, ok := db.Get(Table, id)
	if !ok {
		return domain.Order{}, false
	}
	return v.(domain.Order), true
}

// All returns every committed order, by id.
func All(db *store.DB) []domain.Order { return store.Values[domain.Order](db, Table) }

// Kind names a use case.
type Kind string

// The use cases of the order service.
const (
	Place  Kind = "place"
	Amend  Kind = "amend"
	Cancel Kind = "cancel"
)

// Command is one call of a use case.
type Command struct {
	Kind    Kind
	OrderID string
	// Amount is the total for Place and the added amount for Amend.
	Amount domain.Money
	// Text is the note of an amendment or the reason of a cancellation.
	Text string
}

func (c Command) String() string {
	switch c.Kind {
	case Place, Amend:
		return fmt.Sprintf("%s %s %s", c.Kind, c.OrderID, c.Amount)
	default:
		return fmt.Sprintf("%s %s", c.Kind, c.OrderID)
	}
}

// Decide runs the business logic of c inside tx: it loads the order, applies
// the change, writes the new order into tx and returns the event that
// describes the change. It does not commit and does not publish.
func Decide(tx *store.Tx, c Command, now time.Time) (domain.Event, error) {
	var (
		o     domain.Order
		event domain.Event
		err   error
	)
	cur, exists := tx.Get(Table, c.OrderID)
	switch {
	case c.Kind == Place && exists:
		return nil, fmt.Errorf("orders: place %s: %w", c.OrderID, ErrExists)
	case c.Kind == Place:
		o, event, err = domain.AcceptOrder(c.OrderID, c.Amount, now)
	case !exists:
		return nil, fmt.Errorf("orders: %s %s: %w", c.Kind, c.OrderID, ErrNotFound)
	case c.Kind == Amend:
		o, event, err = cur.(domain.Order).Amend(c.Amount, c.Text, now)
	case c.Kind == Cancel:
		o, event, err = cur.(domain.Order).Cancel(c.Text, now)
	default:
		return nil, fmt.Errorf("orders: unknown command %q (valid: place, amend, cancel)", c.Kind)
	}
	if err != nil {
		return nil, fmt.Errorf("orders: %w", err)
	}
	tx.Put(Table, o.ID, o)
	return event, nil
}

// Service is the order service with a transactional outbox.
type Service struct {
	DB    *store.DB
	Gate  effect.Gate
	Clock Clock
	IDs   IDs
	// Owner is the process name its transactions belong to, e.g. "service".
	Owner string
}

// Handle runs one use case as one transaction that writes the changed order
// and its outbox message, committed at the service's boundary. Nothing here
// talks to the broker: the use case ends at the commit.
func (s *Service) Handle(c Command) error {
	now := s.Clock.Now()
	tx := s.DB.Begin(s.Owner)
	defer tx.Rollback()
	event, err := Decide(tx, c, now)
	if err != nil {
		return err
	}
	if _, err := outbox.Append(tx, s.IDs.NewID(), event, now); err != nil {
		return fmt.Errorf("orders: %s: %w", c, err)
	}
	if err := s.Gate.Cross(BoundaryCommit, tx.Commit); err != nil {
		return fmt.Errorf("orders: %s: %w", c, err)
	}
	return nil
}
