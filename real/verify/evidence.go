package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outboxlab/domain"
	"outboxlab/outbox"
)

// evidence collects what the judge reads once the relays have ended.
func (w *world) evidence(cfg Config, r Round) (Evidence, error) {
	ctx := context.Background()
	e := Evidence{Committed: w.svc.Committed(), Changes: w.svc.Changes(), Log: w.tap.Log(), Produces: w.tap.Produces(),
		Lease: cfg.Lease, Instances: r.Instances, Acknowledged: w.svc.Acknowledged()}
	w.drv.mu.Lock()
	e.Interruptions, e.Outages = append(e.Interruptions, w.drv.interruptions...), append(e.Outages, w.drv.outages...)
	w.drv.mu.Unlock()
	rows, err := w.pool.Query(ctx, `SELECT body FROM lab_orders ORDER BY id`)
	if err != nil {
		return e, fmt.Errorf("verify: orders: %w", err)
	}
	if e.Orders, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Order, error) {
		var body []byte
		var o domain.Order
		if err := row.Scan(&body); err != nil {
			return o, err
		}
		return o, json.Unmarshal(body, &o)
	}); err != nil {
		return e, fmt.Errorf("verify: orders: %w", err)
	}
	rows, err = w.pool.Query(ctx, `SELECT event_id, status, COALESCE(lease_owner, ''), created_at FROM outbox WHERE status <> 'SENT' ORDER BY id`)
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
