package sqlitelab

import (
	"fmt"
	"strconv"

	"outboxlab/outbox"
)

// position is how a relay narrows its claim to what lies past a position
// it keeps in memory, as a relay that tails the outbox does.
type position int

const (
	// noPosition: the reference claims every unsent message by its status.
	noPosition position = iota
	// byID: offset-by-id, the ids above the highest one it sent.
	byID
	// byHorizon: offset-by-horizon (PostgreSQL), the messages of
	// transactions past a transaction-id horizon and older than every
	// transaction still running.
	byHorizon
)

// The narrowed reads: the unsent messages past the position, in order.
// The horizon's read takes only the rows of transactions that finished
// (created_xid below the xmin of the statement's snapshot): a row whose
// transaction is still open may commit a lower id later.
const (
	unsentByID      = `SELECT body FROM outbox WHERE status <> 'SENT' AND seq > $1 ORDER BY seq`
	unsentByHorizon = `SELECT body FROM outbox WHERE status <> 'SENT' AND created_xid >= $1::xid8
		AND created_xid < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY seq`
)

// unsentPastPosition reads what the relay may claim from, in order.
func (r *relay) unsentPastPosition(tx *orderTx) ([]outbox.Message, error) {
	switch r.variant.position {
	case byID:
		// MISTAKE (offset-by-id): only ids above the highest one sent; a
		// message committed late with a lower id is never read.
		offset, _ := strconv.ParseInt(r.position, 10, 64) // written by movePosition: digits
		return scanMessages(tx.tx, unsentByID, offset)
	case byHorizon:
		return scanMessages(tx.tx, unsentByHorizon, r.position)
	}
	return tx.unsent()
}

// startPosition reads the position of a relay that starts: as the
// simulator's offset-by-id does, from what the database holds.
func (r *relay) startPosition() error { return r.movePosition() }

// movePosition moves the position past what is sent. By id: up to the
// highest SENT id with no unsent id below it among the rows committed now
// (a row whose transaction is still open is not among them: that is the
// gap). By
// horizon: the oldest transaction that may still hold an unsent row, the
// xmin of the current snapshot or the oldest unsent row's transaction;
// a transaction that commits later is younger than the xmin it saw.
func (r *relay) movePosition() error {
	query := ""
	switch r.variant.position {
	case noPosition:
		return nil
	case byID:
		query = `SELECT CAST(COALESCE((SELECT MIN(seq) - 1 FROM outbox WHERE status <> 'SENT'),
			(SELECT COALESCE(MAX(seq), 0) FROM outbox)) AS TEXT)`
	case byHorizon:
		query = `SELECT LEAST(pg_snapshot_xmin(pg_current_snapshot()),
			(SELECT MIN(created_xid) FROM outbox WHERE status <> 'SENT'))::text`
	}
	var next string
	if err := r.db.QueryRow(query).Scan(&next); err != nil {
		return fmt.Errorf("outbox: position: %w", err)
	}
	if r.variant.position == byID {
		// The offset only moves up, as the simulator's does: a row
		// committed below it is passed over for good, not read once it
		// shows.
		old, _ := strconv.ParseInt(r.position, 10, 64)
		if n, _ := strconv.ParseInt(next, 10, 64); n < old {
			return nil
		}
	}
	r.position = next
	return nil
}
