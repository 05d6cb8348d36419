package verify

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"outboxlab/domain"
	"outboxlab/orders"
	"outboxlab/sim/check"
	"outboxlab/store"
)

// Committed is an event the service committed, and when.
type Committed struct {
	EventID string
	Record  domain.Record
	At      time.Duration
}

// Service is the lab's order service on the contract's table: each
// command is decided by the core's orders.Decide and committed in one
// PostgreSQL transaction with its outbox row. It remembers what it
// committed: the judge's list of committed changes does not depend on what
// a relay left in the table (a relay may delete what it sent).
type Service struct {
	pool *pgxpool.Pool
	mem  *store.DB // the orders as orders.Decide reads them
	tl   *Timeline

	mu           sync.Mutex
	committed    []Committed
	byID         map[string]Committed
	acknowledged []string
}

// NewService returns a service writing to pool.
func NewService(pool *pgxpool.Pool, tl *Timeline) (*Service, error) {
	mem := store.New("orders")
	if err := orders.Install(mem); err != nil {
		return nil, err
	}
	mem.KeepLog()
	return &Service{pool: pool, mem: mem, tl: tl, byID: map[string]Committed{}}, nil
}

// Handle runs one command as one transaction: the order and its outbox
// row commit together, or neither does. A command the domain refuses (an
// amendment of a cancelled order) is no error: it is answered as refused.
func (s *Service) Handle(ctx context.Context, c orders.Command) error {
	tx := s.mem.Begin("service")
	defer tx.Rollback()
	event, err := orders.Decide(tx, c, time.Now().UTC())
	if err != nil {
		s.tl.Add("service", 0, "%s refused: %v", c, err)
		return nil
	}
	rec, err := domain.Encode(event)
	if err != nil {
		return err
	}
	cur, _ := tx.Get(orders.Table, c.OrderID)
	o := cur.(domain.Order)
	s.mu.Lock()
	id := fmt.Sprintf("e-%d", len(s.committed)+1)
	s.mu.Unlock()
	err = pgx.BeginFunc(ctx, s.pool, func(ptx pgx.Tx) error {
		if _, err := ptx.Exec(ctx, `INSERT INTO lab_orders (id, version, body) VALUES ($1, $2, $3)
			ON CONFLICT (id) DO UPDATE SET version = excluded.version, body = excluded.body`, o.ID, o.Version, o); err != nil {
			return err
		}
		_, err := ptx.Exec(ctx, `INSERT INTO outbox (event_id, aggregate_type, aggregate_id, event_type, event_version, sequence, payload)
			VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)`, id, rec.AggregateType, rec.AggregateID, rec.Type, rec.Version, rec.Sequence, rec.Payload)
		return err
	})
	if err != nil {
		return fmt.Errorf("verify: service: %s: %w", c, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("verify: service: %s: %w", c, err)
	}
	at := s.tl.Since()
	s.mu.Lock()
	cm := Committed{EventID: id, Record: rec, At: at}
	s.committed = append(s.committed, cm)
	s.byID[id] = cm
	s.acknowledged = append(s.acknowledged, c.OrderID)
	s.mu.Unlock()
	s.tl.Add("service", 0, "committed %s: %s (%s#%d)", id, c, rec.AggregateID, rec.Sequence)
	return nil
}

// Changes are the committed business changes, from the commit log of the
// service's own orders (check.Changes): what billing must apply.
func (s *Service) Changes() []check.Change {
	s.mu.Lock()
	defer s.mu.Unlock()
	return check.Changes(s.mem.Log(0))
}

// Committed returns the events committed so far, in commit order.
func (s *Service) Committed() []Committed {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Committed(nil), s.committed...)
}

// Event returns the committed event with id, if there is one.
func (s *Service) Event(id string) (Committed, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.byID[id]
	return c, ok
}

// Acknowledged returns the order ids of the commands committed, one per
// command: what the service's clients were told.
func (s *Service) Acknowledged() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.acknowledged...)
}
