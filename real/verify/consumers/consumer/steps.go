package consumer

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Tables is this consumer's own part of the billing database: its inbox
// (the sequence applied last of each order) and the events it parked
// behind a gap. The contract's tables (billing_ledger, billing_accounts,
// billing_dead_letters) are there before it starts.
const Tables = `
CREATE TABLE IF NOT EXISTS consumer_inbox (
	order_id TEXT PRIMARY KEY,
	applied  INT  NOT NULL
);
CREATE TABLE IF NOT EXISTS consumer_parked (
	order_id     TEXT   NOT NULL,
	sequence     INT    NOT NULL,
	event_id     TEXT   NOT NULL,
	type         TEXT   NOT NULL,
	amount_minor BIGINT NOT NULL,
	currency     TEXT   NOT NULL,
	PRIMARY KEY (order_id, sequence)
);`

// createTables creates Tables once, whichever instance starts first: the
// others wait for its lock, then find them there.
func createTables(ctx context.Context, db *pgxpool.Pool) error {
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('consumer_inbox'))`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, Tables)
		return err
	})
}

// handle reads a record and handles its event in one transaction: the
// inbox decides, and the effect, the parked events it lets through and
// the inbox's new sequence commit together, or none of them does.
func (c *Consumer) handle(ctx context.Context, rec *kgo.Record) error {
	e, err := readRecord(rec, c.Known, c.ParseAmount)
	if err != nil {
		return err
	}
	var said string
	err = pgx.BeginFunc(ctx, c.DB, func(tx pgx.Tx) error {
		applied, err := c.Applied(ctx, tx, e.OrderID)
		if err != nil {
			return fmt.Errorf("inbox of %s: %w", e.OrderID, err)
		}
		switch c.Decide(e.Sequence, applied) {
		case Skip:
			said = fmt.Sprintf("%s (%s#%d) skipped: applied before (%s is at #%d)", e.ID, e.OrderID, e.Sequence, e.OrderID, applied)
			return nil
		case Park:
			said = fmt.Sprintf("%s (%s#%d) parked: %s is at #%d", e.ID, e.OrderID, e.Sequence, e.OrderID, applied)
			return park(ctx, tx, e)
		}
		said = "applied"
		for next, ok := e, true; ok; next, ok, err = unpark(ctx, tx, e.OrderID, applied+1) {
			if err := effect(ctx, tx, next); err != nil {
				return fmt.Errorf("effect of %s: %w", next.ID, err)
			}
			applied = max(applied, next.Sequence) // the inbox never goes back
			said += fmt.Sprintf(" %s (%s#%d %s)", next.ID, next.OrderID, next.Sequence, next.Type)
		}
		if err != nil {
			return err
		}
		return c.MarkApplied(ctx, tx, e.OrderID, applied)
	})
	if err == nil {
		c.logf("%s", said)
	}
	return err
}

// applied locks the order's row of the inbox (made if it is not there) and
// returns its sequence: a second instance that handles the same order
// waits here until the first one's transaction ends.
func applied(ctx context.Context, q Querier, orderID string) (int, error) {
	if _, err := q.Exec(ctx, `INSERT INTO consumer_inbox (order_id, applied) VALUES ($1, 0) ON CONFLICT DO NOTHING`, orderID); err != nil {
		return 0, err
	}
	var seq int
	err := q.QueryRow(ctx, `SELECT applied FROM consumer_inbox WHERE order_id = $1 FOR UPDATE`, orderID).Scan(&seq)
	return seq, err
}

func decide(seq, applied int) Decision {
	switch {
	case seq <= applied:
		return Skip
	case seq == applied+1:
		return Apply
	}
	return Park
}

func markApplied(ctx context.Context, q Querier, orderID string, seq int) error {
	_, err := q.Exec(ctx, `INSERT INTO consumer_inbox (order_id, applied) VALUES ($1, $2)
		ON CONFLICT (order_id) DO UPDATE SET applied = excluded.applied`, orderID, seq)
	return err
}

// effect writes an event's business effect: a row of the ledger, and the
// order's account.
func effect(ctx context.Context, tx pgx.Tx, e Event) error {
	kind, amount := "invoice", e.Amount
	switch e.Type {
	case "OrderAmended":
		kind = "line"
	case "OrderCancelled":
		kind = "credit"
		if err := tx.QueryRow(ctx, `SELECT -billed_minor, currency FROM billing_accounts WHERE order_id = $1 FOR UPDATE`,
			e.OrderID).Scan(&amount.Minor, &amount.Currency); err != nil {
			return fmt.Errorf("the account of %s: %w", e.OrderID, err)
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO billing_ledger (event_id, order_id, sequence, kind, amount_minor, currency)
		VALUES ($1, $2, $3, $4, $5, $6)`, e.ID, e.OrderID, e.Sequence, kind, amount.Minor, amount.Currency); err != nil {
		return err
	}
	var err error
	switch kind {
	case "invoice":
		_, err = tx.Exec(ctx, `INSERT INTO billing_accounts (order_id, currency, billed_minor, cancelled) VALUES ($1, $2, $3, false)
			ON CONFLICT (order_id) DO UPDATE SET currency = excluded.currency, billed_minor = excluded.billed_minor, cancelled = false`,
			e.OrderID, amount.Currency, amount.Minor)
	case "line":
		_, err = tx.Exec(ctx, `UPDATE billing_accounts SET billed_minor = billed_minor + $2 WHERE order_id = $1`, e.OrderID, amount.Minor)
	case "credit":
		_, err = tx.Exec(ctx, `UPDATE billing_accounts SET billed_minor = 0, cancelled = true WHERE order_id = $1`, e.OrderID)
	}
	return err
}

func park(ctx context.Context, tx pgx.Tx, e Event) error {
	_, err := tx.Exec(ctx, `INSERT INTO consumer_parked (order_id, sequence, event_id, type, amount_minor, currency)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`, e.OrderID, e.Sequence, e.ID, e.Type, e.Amount.Minor, e.Amount.Currency)
	return err
}

// unpark takes the parked event of the order with sequence seq out of
// the parking, if it is there.
func unpark(ctx context.Context, tx pgx.Tx, orderID string, seq int) (Event, bool, error) {
	e := Event{OrderID: orderID, Sequence: seq}
	err := tx.QueryRow(ctx, `DELETE FROM consumer_parked WHERE order_id = $1 AND sequence = $2
		RETURNING event_id, type, amount_minor, currency`, orderID, seq).Scan(&e.ID, &e.Type, &e.Amount.Minor, &e.Amount.Currency)
	if errors.Is(err, pgx.ErrNoRows) {
		return e, false, nil
	}
	if err != nil {
		return e, false, fmt.Errorf("unpark %s#%d: %w", orderID, seq, err)
	}
	return e, true, nil
}

// unreadable gives up only on a record it cannot read: every other error
// (the database's, the broker's) is transient.
func unreadable(err error) bool { return errors.Is(err, ErrUnreadable) }

// deadLetter records a record it gives up on, once, with why.
func (c *Consumer) deadLetter(ctx context.Context, rec *kgo.Record, cause error) error {
	var id string
	for _, h := range rec.Headers {
		if h.Key == HeaderID {
			id = string(h.Value)
		}
	}
	_, err := c.DB.Exec(ctx, `INSERT INTO billing_dead_letters (event_id, partition, "offset", reason)
		SELECT NULLIF($1, ''), $2, $3, $4
		WHERE NOT EXISTS (SELECT 1 FROM billing_dead_letters WHERE partition = $2 AND "offset" = $3)`,
		id, rec.Partition, rec.Offset, cause.Error())
	if err != nil {
		return fmt.Errorf("dead letter p%d/%d: %w", rec.Partition, rec.Offset, err)
	}
	c.logf("dead letter p%d/%d (%s): %v", rec.Partition, rec.Offset, id, cause)
	return nil
}
