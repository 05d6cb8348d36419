package verify

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outboxlab/billing"
	"outboxlab/domain"
)

// quiesce waits until the group has committed offsets at the end of every
// partition, no effect has committed for a while and no fault is in
// progress, at most cfg.Quiesce after the last fault, and ends the
// consumers.
func (w *consumerWorld) quiesce(ctx context.Context, cfg Config) (bool, string) {
	deadline := time.Now().Add(cfg.Quiesce)
	left, effects := "", -1
	for quiet := 0; time.Now().Before(deadline) && w.fleet.Broken() == nil && !stopped(cfg.Stop); time.Sleep(50 * time.Millisecond) {
		if w.drv.busy() {
			deadline = time.Now().Add(cfg.Quiesce)
		}
		// A fault that ends after the workload's commands may still want
		// commands: the amendments it injects, a fresh record of a
		// partition whose offsets the broker lost.
		if !w.drv.busy() {
			w.drv.freshen()
		}
		w.handleInjected(ctx)
		n := 0
		if err := w.billing.QueryRow(ctx, `SELECT count(*) FROM lab_effects`).Scan(&n); err != nil {
			w.tl.Add("harness", 0, "cannot count the effects: %v", err)
		}
		left = w.behind()
		if left == "" && n == effects && !w.drv.busy() {
			quiet++
		} else {
			quiet = 0
		}
		effects = n
		if quiet == 5 {
			w.tl.Add("harness", 0, "quiet: the group has read every record, %d effect(s) committed", n)
			w.fleet.Shutdown(3 * time.Second)
			return true, ""
		}
	}
	w.fleet.Shutdown(3 * time.Second)
	return false, fmt.Sprintf("the group had not read every record %s after the last command and fault: %s", cfg.Quiesce, left)
}

// behind says which partitions the group's committed offsets have not
// reached the end of, "" for none.
func (w *consumerWorld) behind() string {
	s := w.group.now()
	said := ""
	for p := range int32(Partitions) {
		info := w.cluster.PartitionInfo(Topic, p)
		if info == nil || info.HighWatermark == 0 {
			continue
		}
		if off, ok := s.Commits[p]; !ok || off < info.HighWatermark {
			said += fmt.Sprintf("p%d at %s of %d; ", p, offsetOf(s.Commits, p), info.HighWatermark)
		}
	}
	return said
}

// evidence collects what the judge reads once the consumers have ended.
func (w *consumerWorld) evidence() (ConsumerEvidence, error) {
	ctx := context.Background()
	e := ConsumerEvidence{Committed: w.svc.Committed(), Changes: w.svc.Changes(), Acknowledged: w.svc.Acknowledged(),
		Published: w.pub.Log(), Offsets: w.group.now().Commits}
	var err error
	if e.Orders, err = committedOrders(ctx, w.orders); err != nil {
		return e, err
	}
	rows, err := w.billing.Query(ctx, `SELECT l.event_id, l.order_id, l.sequence, l.kind, l.amount_minor, l.currency
		FROM lab_effects e JOIN billing_ledger l ON l.id = e.ledger_id ORDER BY e.n`)
	if err != nil {
		return e, fmt.Errorf("verify: ledger: %w", err)
	}
	if e.Ledger, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (billing.Entry, error) {
		var l billing.Entry
		var kind, currency string
		err := row.Scan(&l.MessageID, &l.OrderID, &l.Sequence, &kind, &l.Amount.Minor, &currency)
		l.Kind, l.Amount.Currency = billing.EffectKind(kind), domain.Currency(currency)
		return l, err
	}); err != nil {
		return e, fmt.Errorf("verify: ledger: %w", err)
	}
	rows, err = w.billing.Query(ctx, `SELECT order_id, billed_minor, currency, cancelled FROM billing_accounts ORDER BY order_id`)
	if err != nil {
		return e, fmt.Errorf("verify: accounts: %w", err)
	}
	if e.Accounts, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (billing.Account, error) {
		var a billing.Account
		var currency string
		err := row.Scan(&a.OrderID, &a.Billed.Minor, &currency, &a.Cancelled)
		a.Billed.Currency = domain.Currency(currency)
		return a, err
	}); err != nil {
		return e, fmt.Errorf("verify: accounts: %w", err)
	}
	rows, err = w.billing.Query(ctx, `SELECT coalesce(event_id, ''), partition, "offset", reason FROM billing_dead_letters ORDER BY id`)
	if err != nil {
		return e, fmt.Errorf("verify: dead letters: %w", err)
	}
	if e.DeadLetters, err = pgx.CollectRows(rows, pgx.RowToStructByPos[DeadLetterRow]); err != nil {
		return e, fmt.Errorf("verify: dead letters: %w", err)
	}
	return e, nil
}
