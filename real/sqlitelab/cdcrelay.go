package sqlitelab

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"outboxlab/alternatives/cdc"
	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/outbox"
)

// publication is what the CDC relay subscribes to: the outbox's inserts.
const publication = "outbox_inserts"

// receiveWait is how long the CDC relay waits for the slot's next message
// before it answers the parent's stop.
const receiveWait = 2 * time.Millisecond

// slotName is the CDC relay's replication slot. Slots belong to the
// server, not to a database, so the name carries the database's.
const slotName = `'cdc_' || current_database()`

// createSlot creates the publication of the outbox's inserts and the
// logical replication slot (pgoutput). From then on the server keeps every
// WAL segment the slot has not confirmed: the slot is the CDC relay's
// durable position.
func createSlot(db *sql.DB) error {
	for _, stmt := range []string{
		`DROP PUBLICATION IF EXISTS ` + publication,
		`CREATE PUBLICATION ` + publication + ` FOR TABLE outbox WITH (publish = 'insert')`,
		`SELECT pg_create_logical_replication_slot(` + slotName + `, 'pgoutput')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			return fmt.Errorf("sqlitelab: cdc slot: %w", err)
		}
	}
	return nil
}

// dropSlot drops the slot an earlier run left, waiting up to five seconds
// for the server to notice that the relay reading it is gone.
func dropSlot(db *sql.DB) error {
	var err error
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		_, err = db.Exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = ` + slotName)
		if err == nil {
			return nil
		}
	}
	return fmt.Errorf("sqlitelab: drop the cdc slot: %w", err)
}

// cdcRelay is the cdc variant's relay on PostgreSQL, cdc.Relay's real
// counterpart: it reads the outbox's inserts from the WAL through the slot,
// publishes each, and confirms a transaction's end to the slot once it
// published all of it. The slot's confirmed position is its offset: a relay
// killed before it confirmed gets the transaction again when it starts
// again (at least once, as the polling relay).
type cdcRelay struct {
	conn *pgconn.PgConn
	// db is a plain connection to the database: it reads the slot's
	// confirmed position (see confirm).
	db        *sql.DB
	slot      string
	broker    durableBroker
	gate      effect.Gate
	relations map[uint32]*pglogrepl.RelationMessage
	confirmed pglogrepl.LSN
	log       func(format string, args ...any)
}

// startCDC connects to the slot; the server resumes after its confirmed
// position. A killed predecessor's connection may hold the slot a moment
// longer: startCDC waits up to five seconds for it.
func startCDC(db *sql.DB, postgres string, brk durableBroker, gate effect.Gate, log func(string, ...any)) (*cdcRelay, error) {
	ctx := context.Background()
	var slot string
	err := db.QueryRow(`SELECT ` + slotName).Scan(&slot)
	if err != nil {
		return nil, fmt.Errorf("cdc: slot name: %w", err)
	}
	sep := "?"
	if strings.Contains(postgres, "?") {
		sep = "&"
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		conn, err := pgconn.Connect(ctx, postgres+sep+"replication=database")
		if err != nil {
			return nil, fmt.Errorf("cdc: connect: %w", err)
		}
		err = pglogrepl.StartReplication(ctx, conn, slot, 0, pglogrepl.StartReplicationOptions{
			PluginArgs: []string{"proto_version '1'", "publication_names '" + publication + "'"}})
		if err == nil {
			log("reading slot %s", slot)
			return &cdcRelay{conn: conn, db: db, slot: slot, broker: brk, gate: gate, relations: map[uint32]*pglogrepl.RelationMessage{}, log: log}, nil
		}
		conn.Close(ctx)
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("cdc: start replication on %s: %w", slot, err)
		}
	}
}

// step handles what the slot sends within a moment; it reports whether
// that was a change.
func (r *cdcRelay) step() (bool, error) {
	msg, err := r.receive()
	if err != nil || msg == nil {
		return false, err
	}
	return true, r.change(msg)
}

// receive returns the next change the slot sends within a moment, nil if
// none came. It answers the server's keepalives, and reads on past them:
// the server sends one for each transaction of another database it
// decoded and skipped (every database's WAL goes through the slot), and a
// relay that took one message per poll fell behind a busy server by tens
// of seconds (four matrix runs at once on one server: the CDC relay's run
// came out LOST at quiesce, its last transaction still queued behind
// keepalives).
func (r *cdcRelay) receive() (pglogrepl.Message, error) {
	ctx, cancel := context.WithTimeout(context.Background(), receiveWait)
	defer cancel()
	for {
		raw, err := r.conn.ReceiveMessage(ctx)
		if pgconn.Timeout(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("cdc: receive: %w", err)
		}
		msg, err := r.message(raw)
		if msg != nil || err != nil {
			return msg, err
		}
	}
}

// message reads one message of the replication stream: a change, or nil
// for a keepalive (answered if the server asks) or anything else.
func (r *cdcRelay) message(raw pgproto3.BackendMessage) (pglogrepl.Message, error) {
	if e, ok := raw.(*pgproto3.ErrorResponse); ok {
		return nil, fmt.Errorf("cdc: %s", e.Message)
	}
	data, ok := raw.(*pgproto3.CopyData)
	if !ok || len(data.Data) == 0 {
		return nil, nil
	}
	switch data.Data[0] {
	case pglogrepl.PrimaryKeepaliveMessageByteID:
		k, err := pglogrepl.ParsePrimaryKeepaliveMessage(data.Data[1:])
		if err != nil || !k.ReplyRequested {
			return nil, err
		}
		return nil, r.status()
	case pglogrepl.XLogDataByteID:
		xld, err := pglogrepl.ParseXLogData(data.Data[1:])
		if err != nil {
			return nil, fmt.Errorf("cdc: %w", err)
		}
		msg, err := pglogrepl.Parse(xld.WALData)
		if err != nil {
			return nil, fmt.Errorf("cdc: %w", err)
		}
		return msg, nil
	}
	return nil, nil
}

// change handles one change of the WAL: an insert into the outbox is
// published, the end of its transaction confirmed.
func (r *cdcRelay) change(msg pglogrepl.Message) error {
	switch m := msg.(type) {
	case *pglogrepl.RelationMessage:
		r.relations[m.RelationID] = m
	case *pglogrepl.InsertMessage:
		out, err := r.decode(m)
		if err != nil {
			return err
		}
		if err := r.publish(out); err != nil {
			return err
		}
		r.log("sent %s %s#%d", out.ID, out.Event.AggregateID, out.Event.Sequence)
	case *pglogrepl.CommitMessage:
		r.confirmed = m.TransactionEndLSN
		if err := r.gate.Cross(cdc.BoundaryOffset, r.confirm); err != nil {
			return err
		}
		r.log("confirmed %s", r.confirmed)
	}
	return nil
}

// publish sends a message, and sends it again after a pause while the
// broker fails it transiently (a timeout, an outage): the WAL stream
// waits meanwhile, as the simulator's CDC relay tries a failed publish
// again after its backoff, before anything past it.
func (r *cdcRelay) publish(out outbox.Message) error {
	for pause := 100 * time.Millisecond; ; pause = min(2*pause, 2*time.Second) {
		err := r.gate.Cross(outbox.BoundarySend, func() error {
			return r.broker.Publish(broker.Envelope{ID: out.ID, Event: out.Event})
		})
		if err == nil || !errors.Is(err, broker.ErrTimeout) && !errors.Is(err, broker.ErrUnavailable) {
			return err
		}
		r.log("send %s failed: %v (again in %s)", out.ID, err, pause)
		time.Sleep(pause)
	}
}

// confirm tells the slot the confirmed position and waits until the server
// holds it: the offset is the slot's then, as the simulator's cdc relay
// commits its offset. A status message alone is on its way when the
// relay goes on; killed right after it (relay.after-offset), the relay's
// socket was closed with data unread, the server was sent a reset and may
// never read the status, and its successor got the transaction again: a
// relay that confirmed too early came out OK where it is LOST.
func (r *cdcRelay) confirm() error {
	if err := r.status(); err != nil {
		return err
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		var held bool
		err := r.db.QueryRow(`SELECT confirmed_flush_lsn >= $1::pg_lsn FROM pg_replication_slots WHERE slot_name = $2`,
			r.confirmed.String(), r.slot).Scan(&held)
		if err != nil {
			return fmt.Errorf("cdc: confirm %s: %w", r.confirmed, err)
		}
		if held {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cdc: the slot did not take %s within 5 s", r.confirmed)
		}
	}
}

// status tells the server the confirmed position: what it may forget.
func (r *cdcRelay) status() error {
	err := pglogrepl.SendStandbyStatusUpdate(context.Background(), r.conn, pglogrepl.StandbyStatusUpdate{
		WALWritePosition: r.confirmed, WALFlushPosition: r.confirmed, WALApplyPosition: r.confirmed, ClientTime: time.Now()})
	if err != nil {
		return fmt.Errorf("cdc: confirm: %w", err)
	}
	return nil
}

// decode reads the message an outbox insert carries.
func (r *cdcRelay) decode(m *pglogrepl.InsertMessage) (outbox.Message, error) {
	rel, ok := r.relations[m.RelationID]
	if !ok {
		return outbox.Message{}, fmt.Errorf("cdc: insert into unknown relation %d", m.RelationID)
	}
	for i, col := range m.Tuple.Columns {
		if rel.Columns[i].Name != "body" {
			continue
		}
		var out outbox.Message
		if err := json.Unmarshal(col.Data, &out); err != nil {
			return outbox.Message{}, fmt.Errorf("cdc: insert into %s: %w", rel.RelationName, err)
		}
		return out, nil
	}
	return outbox.Message{}, errors.New("cdc: an insert into " + rel.RelationName + " without a body")
}
