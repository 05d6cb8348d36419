package pglab

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/orders"
)

// Schema is chapter 003's outbox on PostgreSQL: a BIGSERIAL id, the
// status, the lease of the relay that holds a message, the id of the
// transaction that wrote the row, and the partial index a relay's poll
// reads. The broker is a table too: the log of what the relays published,
// in the order published.
const Schema = `
CREATE TABLE orders (
	id      TEXT PRIMARY KEY,
	version INT NOT NULL,
	body    JSONB NOT NULL -- domain.Order
);
CREATE TABLE outbox (
	id          BIGSERIAL PRIMARY KEY,
	message_id  TEXT NOT NULL UNIQUE,
	record      JSONB NOT NULL, -- domain.Record: type, version, aggregate, sequence, payload
	aggregate_id TEXT NOT NULL GENERATED ALWAYS AS (record->>'AggregateID') STORED,
	status      TEXT NOT NULL DEFAULT 'PENDING',
	lease_owner TEXT,
	lease_until TIMESTAMPTZ,
	created_xid XID8 NOT NULL DEFAULT pg_current_xact_id(),
	created_at  TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
	sent_at     TIMESTAMPTZ
);
CREATE INDEX outbox_unsent ON outbox (id) WHERE status <> 'SENT';
CREATE INDEX outbox_unsent_by_aggregate ON outbox (aggregate_id, id) WHERE status <> 'SENT';
CREATE TABLE claims (  -- every claim, written by the claim's transaction
	message_id  TEXT NOT NULL,
	owner       TEXT NOT NULL,
	claimed_at  TIMESTAMPTZ NOT NULL,
	lease_until TIMESTAMPTZ NOT NULL
);
CREATE TABLE published (
	n          BIGSERIAL PRIMARY KEY,
	message_id TEXT NOT NULL,
	record     JSONB NOT NULL,
	relay      TEXT NOT NULL
);`

// Install creates the schema in a fresh database.
func Install(ctx context.Context, pool *pgxpool.Pool) error {
	if _, err := pool.Exec(ctx, Schema); err != nil {
		return fmt.Errorf("pglab: install: %w", err)
	}
	return nil
}

// Decide applies c to the order as orders.Decide does, in tx, and writes the
// order and its outbox row: the service's transaction, not committed.
func Decide(ctx context.Context, tx pgx.Tx, c orders.Command, messageID string) error {
	now := time.Now().UTC()
	var (
		cur    domain.Order
		exists bool
	)
	var body []byte
	err := tx.QueryRow(ctx, `SELECT body FROM orders WHERE id = $1 FOR UPDATE`, c.OrderID).Scan(&body)
	switch {
	case err == nil:
		exists = true
		if err := json.Unmarshal(body, &cur); err != nil {
			return fmt.Errorf("pglab: order %s: %w", c.OrderID, err)
		}
	case err != pgx.ErrNoRows:
		return fmt.Errorf("pglab: order %s: %w", c.OrderID, err)
	}
	var (
		o     domain.Order
		event domain.Event
	)
	switch {
	case c.Kind == orders.Place && exists:
		return fmt.Errorf("orders: place %s: %w", c.OrderID, orders.ErrExists)
	case c.Kind == orders.Place:
		o, event, err = domain.AcceptOrder(c.OrderID, c.Amount, now)
	case !exists:
		return fmt.Errorf("orders: %s %s: %w", c.Kind, c.OrderID, orders.ErrNotFound)
	case c.Kind == orders.Amend:
		o, event, err = cur.Amend(c.Amount, c.Text, now)
	case c.Kind == orders.Cancel:
		o, event, err = cur.Cancel(c.Text, now)
	default:
		return fmt.Errorf("orders: unknown command %q (valid: place, amend, cancel)", c.Kind)
	}
	if err != nil {
		return err
	}
	rec, err := domain.Encode(event)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO orders (id, version, body) VALUES ($1, $2, $3)
		ON CONFLICT (id) DO UPDATE SET version = excluded.version, body = excluded.body`, o.ID, o.Version, o); err != nil {
		return fmt.Errorf("pglab: order %s: %w", o.ID, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO outbox (message_id, record) VALUES ($1, $2)`, messageID, rec); err != nil {
		return fmt.Errorf("pglab: outbox %s: %w", messageID, err)
	}
	return nil
}

// Handle runs c as one transaction: the order and its outbox row commit
// together.
func Handle(ctx context.Context, pool *pgxpool.Pool, c orders.Command, messageID string) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return Decide(ctx, tx, c, messageID) })
}

// Claimed is one message a relay holds.
type Claimed struct {
	ID        int64
	MessageID string
	Record    domain.Record
}

// ClaimDue claims up to batch due messages for owner under a lease, in id
// order: PENDING ones, and IN_FLIGHT ones whose lease expired, each the
// oldest unsent message of its aggregate (a later one waits until the one
// before it is SENT, so that relays publish an aggregate's events in
// order). FOR UPDATE SKIP LOCKED: a row another relay's claim transaction
// holds is skipped, not waited for, so relays never claim one message at
// once and never queue behind each other.
func ClaimDue(ctx context.Context, pool *pgxpool.Pool, owner string, batch int, lease time.Duration) ([]Claimed, error) {
	var out []Claimed
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			WITH due AS (
				SELECT id FROM outbox o
				WHERE status <> 'SENT' AND (status = 'PENDING' OR lease_until < clock_timestamp())
				  AND NOT EXISTS (SELECT 1 FROM outbox e
					WHERE e.aggregate_id = o.aggregate_id AND e.id < o.id AND e.status <> 'SENT')
				ORDER BY id LIMIT $1
				FOR UPDATE SKIP LOCKED)
			UPDATE outbox o SET status = 'IN_FLIGHT', lease_owner = $2,
				lease_until = clock_timestamp() + $3 * interval '1 millisecond'
			FROM due WHERE o.id = due.id
			RETURNING o.id, o.message_id, o.record, o.lease_until`, batch, owner, lease.Milliseconds())
		if err != nil {
			return err
		}
		var leases []time.Time
		for rows.Next() {
			var (
				c     Claimed
				until time.Time
			)
			if err := rows.Scan(&c.ID, &c.MessageID, &c.Record, &until); err != nil {
				return err
			}
			out, leases = append(out, c), append(leases, until)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		for i, c := range out {
			if _, err := tx.Exec(ctx, `INSERT INTO claims VALUES ($1, $2, clock_timestamp(), $3)`, c.MessageID, owner, leases[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pglab: claim: %w", err)
	}
	return out, nil
}

// Publish stores the message in the broker's log.
func Publish(ctx context.Context, pool *pgxpool.Pool, relay string, c Claimed) error {
	if _, err := pool.Exec(ctx, `INSERT INTO published (message_id, record, relay) VALUES ($1, $2, $3)`, c.MessageID, c.Record, relay); err != nil {
		return fmt.Errorf("pglab: publish %s: %w", c.MessageID, err)
	}
	return nil
}

// MarkSent records SENT if owner still holds a live lease: the fence. It
// reports false when the lease was lost (another relay may own the message
// now and will send it again).
func MarkSent(ctx context.Context, pool *pgxpool.Pool, owner string, c Claimed) (bool, error) {
	tag, err := pool.Exec(ctx, `UPDATE outbox SET status = 'SENT', sent_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL
		WHERE id = $1 AND status = 'IN_FLIGHT' AND lease_owner = $2 AND lease_until > clock_timestamp()`, c.ID, owner)
	if err != nil {
		return false, fmt.Errorf("pglab: mark %s: %w", c.MessageID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// Envelopes reads what the broker stored, in order.
func Envelopes(ctx context.Context, pool *pgxpool.Pool) ([]broker.Envelope, error) {
	rows, err := pool.Query(ctx, `SELECT message_id, record FROM published ORDER BY n`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (broker.Envelope, error) {
		var e broker.Envelope
		err := row.Scan(&e.ID, &e.Event)
		return e, err
	})
}

// PollAfter is the poll of a relay that remembers the highest id it sent
// instead of claiming: the unsent rows above offset, in id order. That is
// the offset-by-id mistake (watermill issue 311): a BIGSERIAL id is drawn
// when the row is written, not when it commits, so a transaction that drew
// a lower id and commits later is passed over for good.
//
// With horizon, the poll reads only rows written by transactions older
// than every transaction still running (created_xid below the xmin of the
// current snapshot): while one that could still commit a lower id is open,
// the relay waits for it. That is the fix.
func PollAfter(ctx context.Context, pool *pgxpool.Pool, offset int64, horizon bool) ([]Claimed, error) {
	query := `SELECT id, message_id, record FROM outbox WHERE status <> 'SENT' AND id > $1 ORDER BY id`
	if horizon {
		query = `SELECT id, message_id, record FROM outbox WHERE status <> 'SENT' AND id > $1
			AND created_xid < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY id`
	}
	rows, err := pool.Query(ctx, query, offset)
	if err != nil {
		return nil, fmt.Errorf("pglab: poll: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Claimed, error) {
		var c Claimed
		err := row.Scan(&c.ID, &c.MessageID, &c.Record)
		return c, err
	})
}

// MarkSentByID records SENT for a relay that holds no lease (one relay,
// polling by offset).
func MarkSentByID(ctx context.Context, pool *pgxpool.Pool, c Claimed) error {
	if _, err := pool.Exec(ctx, `UPDATE outbox SET status = 'SENT', sent_at = clock_timestamp() WHERE id = $1`, c.ID); err != nil {
		return fmt.Errorf("pglab: mark %s: %w", c.MessageID, err)
	}
	return nil
}
