package sqlitelab

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"outboxlab/broker"
	"outboxlab/outbox"
)

// durableBroker is the broker as every process reaches it: a log in a
// SQLite file of its own. Publish stores a message durably before it
// returns (the broker's ack); billing receives the oldest message that is
// neither acknowledged nor held by a live session, and acknowledges it once
// its effect is committed. A message held by a session whose process died
// is delivered again to the next session (Reconnect), as a broker redelivers
// what a dead consumer never acknowledged.
//
// The broker is down while the run's control file says so (a row that
// plans an outage, see Stall.Outage): Publish fails with
// broker.ErrUnavailable, and stores nothing.
type durableBroker struct {
	db      *sql.DB
	control *sql.DB // nil: never down
	// orders is the order database of a relay (nil for the service's and
	// billing's, whose publish may come inside a transaction that holds the
	// database's one connection): a dropped publish waits for its row's
	// mark.
	orders *sql.DB
}

// DropWait is how long a publish the broker drops (Config.Drop) keeps its
// publisher waiting for an answer, unless its outbox row is SENT first.
const DropWait = 500 * time.Millisecond

// Publish implements broker.Publisher.
func (b durableBroker) Publish(e broker.Envelope) error {
	if b.control != nil && b.dropped(e) {
		return fmt.Errorf("broker: publish %s: %w", e.ID, broker.ErrTimeout)
	}
	if b.control != nil {
		var down bool
		if err := b.control.QueryRow(`SELECT down FROM outage`).Scan(&down); err != nil {
			return fmt.Errorf("broker: publish %s: %w", e.ID, err)
		}
		if down {
			return fmt.Errorf("broker: publish %s: %w", e.ID, broker.ErrUnavailable)
		}
	}
	record, err := json.Marshal(e.Event)
	if err != nil {
		return fmt.Errorf("broker: publish %s: %w", e.ID, err)
	}
	if _, err := b.db.Exec(`INSERT INTO log (id, record) VALUES (?, ?)`, e.ID, record); err != nil {
		return fmt.Errorf("broker: publish %s: %w", e.ID, err)
	}
	return nil
}

// dropped reports whether the broker drops this publish (the run's
// Config.Drop, once), after keeping its publisher waiting: until the
// message's outbox row is SENT (a relay that marked it while its publish
// was still on its way: the broker's answer comes after the mark, as a
// refusal or a timeout does on a real broker), or DropWait; a publisher
// that is no relay (a service that publishes itself) at once.
func (b durableBroker) dropped(e broker.Envelope) bool {
	var n int
	err := b.control.QueryRow(`UPDATE drop_publish SET fired_pid = ? WHERE fired_pid = 0 AND aggregate = ? AND sequence = ? RETURNING 1`,
		os.Getpid(), e.Event.AggregateID, e.Event.Sequence).Scan(&n)
	if err != nil { // sql.ErrNoRows: not this one, or dropped before
		return false
	}
	for deadline := time.Now().Add(DropWait); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		var status string
		if b.orders == nil || b.orders.QueryRow(`SELECT status FROM outbox WHERE id = $1`, e.ID).Scan(&status) != nil || status == string(outbox.Sent) {
			break
		}
	}
	return true
}

// Reconnect starts a consumer session: whatever an earlier session held
// and did not acknowledge is queued again.
func (b durableBroker) Reconnect(session int) error {
	if _, err := b.db.Exec(`UPDATE log SET session = 0 WHERE acked = 0 AND session <> ?`, session); err != nil {
		return fmt.Errorf("broker: reconnect: %w", err)
	}
	return nil
}

// Receive hands the oldest queued message to session; the delivery's Tag
// is the message's offset in the log.
func (b durableBroker) Receive(session int) (broker.Delivery, bool, error) {
	var (
		d      broker.Delivery
		record []byte
	)
	err := b.db.QueryRow(`UPDATE log SET session = ?
		WHERE offset = (SELECT MIN(offset) FROM log WHERE acked = 0 AND session = 0)
		RETURNING offset, id, record`, session).Scan(&d.Tag, &d.Envelope.ID, &record)
	if errors.Is(err, sql.ErrNoRows) {
		return broker.Delivery{}, false, nil
	}
	if err != nil {
		return broker.Delivery{}, false, fmt.Errorf("broker: receive: %w", err)
	}
	if err := json.Unmarshal(record, &d.Envelope.Event); err != nil {
		return broker.Delivery{}, false, fmt.Errorf("broker: receive %s: %w", d.Envelope.ID, err)
	}
	return d, true, nil
}

// Ack confirms a delivery: the message is not delivered again.
func (b durableBroker) Ack(tag uint64) error {
	if _, err := b.db.Exec(`UPDATE log SET acked = 1 WHERE offset = ?`, tag); err != nil {
		return fmt.Errorf("broker: ack %d: %w", tag, err)
	}
	return nil
}
