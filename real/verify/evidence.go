package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"outboxlab/domain"
	"outboxlab/outbox"
)

// committedOrders reads the orders the service committed (lab_orders).
func committedOrders(ctx context.Context, pool *pgxpool.Pool) ([]domain.Order, error) {
	rows, err := pool.Query(ctx, `SELECT body FROM lab_orders ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("verify: orders: %w", err)
	}
	orders, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Order, error) {
		var body []byte
		var o domain.Order
		if err := row.Scan(&body); err != nil {
			return o, err
		}
		return o, json.Unmarshal(body, &o)
	})
	if err != nil {
		return nil, fmt.Errorf("verify: orders: %w", err)
	}
	return orders, nil
}

// evidence collects what the judge reads once the relays have ended.
func (w *world) evidence(cfg Config, r Round) (Evidence, error) {
	ctx := context.Background()
	e := Evidence{Committed: w.svc.Committed(), Changes: w.svc.Changes(), Log: w.tap.Log(), Produces: w.tap.Produces(),
		Lease: cfg.Lease, Instances: r.Instances, Acknowledged: w.svc.Acknowledged()}
	w.drv.mu.Lock()
	e.Interruptions, e.Outages = append(e.Interruptions, w.drv.interruptions...), append(e.Outages, w.drv.outages...)
	w.drv.mu.Unlock()
	var err error
	if e.Orders, err = committedOrders(ctx, w.pool); err != nil {
		return e, err
	}
	// With BySlot a row's status plays no part but for DEAD_LETTER: the
	// slot's position says what is sent.
	var sent map[string]bool
	query := `SELECT event_id, status, COALESCE(lease_owner, ''), created_at FROM outbox WHERE status <> 'SENT' ORDER BY id`
	if w.commits != nil {
		if sent, err = w.commits.sent(ctx); err != nil {
			return e, err
		}
		query = `SELECT event_id, status, COALESCE(lease_owner, ''), created_at FROM outbox ORDER BY id`
	}
	rows, err := w.pool.Query(ctx, query)
	if err != nil {
		return e, fmt.Errorf("verify: outbox: %w", err)
	}
	if e.Unsent, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (outbox.Message, error) {
		var m outbox.Message
		var status string
		err := row.Scan(&m.ID, &status, &m.LeaseOwner, &m.CreatedAt)
		m.Status = outbox.Status(status)
		c, _ := w.svc.Event(m.ID)
		m.Event = c.Record
		return m, err
	}); err != nil {
		return e, fmt.Errorf("verify: outbox: %w", err)
	}
	if w.commits != nil {
		e.Unsent = slices.DeleteFunc(e.Unsent, func(m outbox.Message) bool { return sent[m.ID] && m.Status != outbox.DeadLetter })
		for i, m := range e.Unsent {
			if m.Status == outbox.Sent { // a status the slot's position overrules
				e.Unsent[i].Status = outbox.Pending
			}
		}
	}
	if e.History, err = w.history(ctx); err != nil {
		return e, err
	}
	e.Ended, e.CutOff = map[*Proc]time.Duration{}, w.cutOff
	for _, p := range w.fleet.All() {
		if p.Ended > 0 {
			e.Ended[p] = p.Ended
		}
	}
	return e, nil
}
