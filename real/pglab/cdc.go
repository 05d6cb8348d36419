package pglab

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgxpool"

	"outboxlab/domain"
)

// Publication is what the CDC relay subscribes to: the outbox's inserts.
const Publication = "outbox_inserts"

// CreateSlot creates the publication of the outbox's inserts and a logical
// replication slot (pgoutput) for the database of pool. From then on the
// server keeps every WAL segment the slot has not confirmed: the slot is
// the CDC relay's durable position, and an idle slot holds WAL back.
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

// CDC is the change-data-capture relay, the real counterpart of the lab's
// cdc variant: it reads the outbox's inserts from the WAL through the slot
// (logical replication, pgoutput), publishes each, and confirms a
// transaction's end to the slot once it published all of it. A CDC relay
// that dies before it confirms gets the transaction again from the slot
// when it starts again: at least once, as the polling relay.
type CDC struct {
	conn      *pgconn.PgConn
	pool      *pgxpool.Pool
	relations map[uint32]*pglogrepl.RelationMessage
	confirmed pglogrepl.LSN
	// Owner names the relay in the broker's log.
	Owner string
}

// StartCDC connects a CDC relay to the slot; it resumes after the last
// position the slot confirmed.
func StartCDC(ctx context.Context, pool *pgxpool.Pool, slot, owner string) (*CDC, error) {
	cc := pool.Config().ConnConfig
	conn, err := pgconn.Connect(ctx, fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable&replication=database",
		cc.User, cc.Host, cc.Port, cc.Database))
	if err != nil {
		return nil, fmt.Errorf("pglab: cdc connect: %w", err)
	}
	err = pglogrepl.StartReplication(ctx, conn, slot, 0, pglogrepl.StartReplicationOptions{
		PluginArgs: []string{"proto_version '1'", "publication_names '" + Publication + "'"}})
	if err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("pglab: start replication on %s: %w", slot, err)
	}
	return &CDC{conn: conn, pool: pool, relations: map[uint32]*pglogrepl.RelationMessage{}, Owner: owner}, nil
}

// Close ends the relay's connection; a CDC relay that is killed ends it
// the same way, without confirming anything more.
func (c *CDC) Close(ctx context.Context) { c.conn.Close(ctx) }

// Run receives and publishes until it has published n outbox inserts and
// reached the end of their transaction, or the context ends; confirm says
// whether it confirms each transaction's end (a relay that dies before its
// confirmations does not). It returns how many inserts it published.
func (c *CDC) Run(ctx context.Context, n int, confirm bool) (int, error) {
	published, inTransaction := 0, false
	for published < n || inTransaction {
		raw, err := c.conn.ReceiveMessage(ctx)
		if err != nil {
			return published, fmt.Errorf("pglab: cdc receive: %w", err)
		}
		if e, ok := raw.(*pgproto3.ErrorResponse); ok {
			return published, fmt.Errorf("pglab: cdc: %s", e.Message)
		}
		data, ok := raw.(*pgproto3.CopyData)
		if !ok || len(data.Data) == 0 || data.Data[0] != pglogrepl.XLogDataByteID {
			continue // keepalives: the status updates below answer them
		}
		xld, err := pglogrepl.ParseXLogData(data.Data[1:])
		if err != nil {
			return published, err
		}
		msg, err := pglogrepl.Parse(xld.WALData)
		if err != nil {
			return published, err
		}
		switch m := msg.(type) {
		case *pglogrepl.RelationMessage:
			c.relations[m.RelationID] = m
		case *pglogrepl.BeginMessage:
			inTransaction = true
		case *pglogrepl.InsertMessage:
			claimed, err := c.decode(m)
			if err != nil {
				return published, err
			}
			if err := Publish(ctx, c.pool, c.Owner, claimed); err != nil {
				return published, err
			}
			published++
		case *pglogrepl.CommitMessage:
			inTransaction = false
			if confirm {
				c.confirmed = m.TransactionEndLSN
				if err := pglogrepl.SendStandbyStatusUpdate(ctx, c.conn, pglogrepl.StandbyStatusUpdate{
					WALWritePosition: c.confirmed, WALFlushPosition: c.confirmed, WALApplyPosition: c.confirmed,
					ClientTime: time.Now()}); err != nil {
					return published, fmt.Errorf("pglab: cdc confirm: %w", err)
				}
			}
		}
	}
	return published, nil
}

// decode reads an outbox insert's message id and record.
func (c *CDC) decode(m *pglogrepl.InsertMessage) (Claimed, error) {
	rel, ok := c.relations[m.RelationID]
	if !ok {
		return Claimed{}, fmt.Errorf("pglab: cdc: insert into unknown relation %d", m.RelationID)
	}
	var out Claimed
	for i, col := range m.Tuple.Columns {
		switch rel.Columns[i].Name {
		case "id":
			fmt.Sscan(string(col.Data), &out.ID)
		case "message_id":
			out.MessageID = string(col.Data)
		case "record":
			var rec domain.Record
			if err := json.Unmarshal(col.Data, &rec); err != nil {
				return Claimed{}, fmt.Errorf("pglab: cdc: record of %s: %w", out.MessageID, err)
			}
			out.Record = rec
		}
	}
	return out, nil
}
