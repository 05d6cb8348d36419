package verify

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SentBy is what makes an outbox row sent (CONTRACT.md, "When a row is
// sent"): its status, which a polling relay writes, or the position a
// CDC relay confirms on its logical replication slot, for a relay that
// reads the write-ahead log and never writes a row.
type SentBy int

const (
	// ByStatus: a row is sent when its status is SENT or it is deleted.
	ByStatus SentBy = iota
	// BySlot: a row is sent when the round's slot (EnvSlot), which the
	// harness creates before the first row and the relay streams from,
	// has confirmed past the commit record of the transaction that wrote
	// it: PostgreSQL will not decode that transaction for the slot again,
	// so no instance will publish it again.
	BySlot
)

var sentByNames = []string{"status", "slot"}

func (s SentBy) String() string { return sentByNames[s] }

// ParseSentBy reads the --sent-by flag: status or slot.
func ParseSentBy(name string) (SentBy, error) {
	for i, n := range sentByNames {
		if n == name {
			return SentBy(i), nil
		}
	}
	return 0, fmt.Errorf("unknown --sent-by %q (valid: status, slot)", name)
}

// commitSchema records, for BySlot, which transaction wrote each row
// (its xid, as logical decoding names it) and publishes the outbox's
// inserts to the harness's own slot, whose commit messages say where
// each transaction's commit record is. It is the harness's part of the
// database: the relay's slots are its own.
const commitSchema = `
CREATE TABLE lab_outbox_xact (
	event_id TEXT PRIMARY KEY,
	xid      BIGINT NOT NULL
);
CREATE FUNCTION lab_outbox_xact() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO lab_outbox_xact (event_id, xid) VALUES (NEW.event_id, pg_current_xact_id()::text::bigint % 4294967296);
	RETURN NEW;
END $$;
CREATE TRIGGER lab_outbox_xact AFTER INSERT ON outbox FOR EACH ROW EXECUTE FUNCTION lab_outbox_xact();
CREATE PUBLICATION lab_commits FOR TABLE outbox WITH (publish = 'insert');`

// SlotName is the name of the slot a CDC relay streams from in a round
// on database: slot names are the server's, and rounds share a server.
func SlotName(database string) string { return "outbox_" + database }

// commits follows, for BySlot, where each row's transaction committed
// and how far the relay's slots have confirmed.
type commits struct {
	pool  *pgxpool.Pool
	own   string            // the harness's slot
	relay string            // the relay's: SlotName
	at    map[uint32]uint64 // xid -> LSN of its commit record
}

// newCommits creates the harness's part and the two slots, each in a
// transaction of its own (a slot cannot be created in one that wrote).
func newCommits(ctx context.Context, pool *pgxpool.Pool) (*commits, error) {
	c := &commits{pool: pool, at: map[uint32]uint64{}}
	var db string
	if err := pool.QueryRow(ctx, `SELECT current_database()`).Scan(&db); err != nil {
		return nil, fmt.Errorf("verify: slots: %w", err)
	}
	c.own, c.relay = "lab_commits_"+db, SlotName(db)
	if _, err := pool.Exec(ctx, commitSchema); err != nil {
		return nil, fmt.Errorf("verify: the harness's commit log: %w", err)
	}
	for _, slot := range []string{c.own, c.relay} {
		if _, err := pool.Exec(ctx, `SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, slot); err != nil {
			return nil, fmt.Errorf("verify: slot %s: %w", slot, err)
		}
	}
	return c, nil
}

// read takes the commit messages decoded since the last read: pgoutput's
// Commit message is 'C', a flags byte, the commit record's LSN, its end
// and the commit time.
func (c *commits) read(ctx context.Context) error {
	rows, err := c.pool.Query(ctx, `SELECT xid::text, data FROM pg_logical_slot_get_binary_changes($1, NULL, NULL,
		'proto_version', '1', 'publication_names', 'lab_commits')`, c.own)
	if err != nil {
		return fmt.Errorf("verify: commit positions: %w", err)
	}
	var xid string
	var data []byte
	_, err = pgx.ForEachRow(rows, []any{&xid, &data}, func() error {
		if len(data) < 10 || data[0] != 'C' {
			return nil
		}
		x, err := strconv.ParseUint(xid, 10, 32)
		if err != nil {
			return err
		}
		c.at[uint32(x)] = binary.BigEndian.Uint64(data[2:10])
		return nil
	})
	if err != nil {
		return fmt.Errorf("verify: commit positions: %w", err)
	}
	return nil
}

// sent returns the event ids whose commit the relay's slot has
// confirmed past (none if the relay dropped it).
func (c *commits) sent(ctx context.Context) (map[string]bool, error) {
	if err := c.read(ctx); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	var confirmed uint64
	err := c.pool.QueryRow(ctx, `SELECT (confirmed_flush_lsn - '0/0'::pg_lsn)::bigint FROM pg_replication_slots WHERE slot_name = $1`, c.relay).Scan(&confirmed)
	if errors.Is(err, pgx.ErrNoRows) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("verify: slot %s: %w", c.relay, err)
	}
	rows, err := c.pool.Query(ctx, `SELECT event_id, xid FROM lab_outbox_xact`)
	if err != nil {
		return nil, fmt.Errorf("verify: the rows' transactions: %w", err)
	}
	var id string
	var xid int64
	_, err = pgx.ForEachRow(rows, []any{&id, &xid}, func() error {
		if at, ok := c.at[uint32(xid)]; ok && confirmed > at {
			out[id] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("verify: the rows' transactions: %w", err)
	}
	return out, nil
}

// dropSlots drops the round's replication slots once its relays have
// ended: a slot outlives its database's use and holds the server's WAL,
// and the server has room for few. A walsender may not yet have seen its
// relay end: it is terminated, and the drop tried again.
func dropSlots(ctx context.Context, pool *pgxpool.Pool) error {
	var err error
	for try := 0; try < 20; try++ {
		var left int
		err = pool.QueryRow(ctx, `SELECT count(*) FROM pg_replication_slots WHERE database = current_database()`).Scan(&left)
		if err != nil || left == 0 {
			return err
		}
		if try > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		_, err = pool.Exec(ctx, `SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots
			WHERE database = current_database() AND active_pid IS NOT NULL`)
		if err == nil {
			_, err = pool.Exec(ctx, `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots
				WHERE database = current_database() AND NOT active`)
		}
	}
	if err == nil {
		err = errors.New("a slot stayed active")
	}
	return err
}
