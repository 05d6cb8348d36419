package pglab

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Publication is what the CDC relay subscribes to: the outbox's inserts.
const Publication = "outbox_inserts"

// CreateSlot creates the publication of the outbox's inserts and a logical
// replication slot (pgoutput) for the database of pool. From then on the
// server keeps every WAL segment the slot has not confirmed: the slot is
// a CDC relay's durable position (the process harness's cdc variant reads
// one: see sqlitelab), and an idle slot holds WAL back.
func CreateSlot(ctx context.Context, pool *pgxpool.Pool, slot string) error {
	if _, err := pool.Exec(ctx, `CREATE PUBLICATION `+Publication+` FOR TABLE outbox WITH (publish = 'insert')`); err != nil {
		return fmt.Errorf("pglab: publication: %w", err)
	}
	if _, err := pool.Exec(ctx, `SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, slot); err != nil {
		return fmt.Errorf("pglab: slot %s: %w", slot, err)
	}
	return nil
}

// RetainedWAL returns how many bytes of WAL the slot holds back: from its
// restart position to the server's current write position.
func RetainedWAL(ctx context.Context, pool *pgxpool.Pool, slot string) (int64, error) {
	var n int64
	err := pool.QueryRow(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint
		FROM pg_replication_slots WHERE slot_name = $1`, slot).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("pglab: retained WAL of %s: %w", slot, err)
	}
	return n, nil
}
