package sqlitelab

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"outboxlab/broker"
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
}

// Publish implements broker.Publisher.
func (b durableBroker) Publish(e broker.Envelope) error {
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
