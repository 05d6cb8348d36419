package sqlitelab

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/mistakes"
)

// consumer is billing's inbox consumer on SQLite: the inbox row, the
// aggregate's applied sequence and the effect in one transaction; events
// ahead of the next expected one parked until it arrives; the broker's ack
// only after the commit.
type consumer struct {
	db      *sql.DB
	broker  durableBroker
	gate    effect.Gate
	session int // the process id: what the broker redelivers after a death
	// mistake is "" for the reference, or the consumer mistake it makes.
	mistake string
	log     func(format string, args ...any)
}

// step receives one delivery, handles it and acknowledges it; it reports
// whether there was one.
func (c *consumer) step() (bool, error) {
	d, ok, err := c.broker.Receive(c.session)
	if err != nil || !ok {
		return false, err
	}
	if err := c.handle(d.Envelope); err != nil {
		return true, err
	}
	return true, c.gate.Cross(inbox.BoundaryAck, func() error { return c.broker.Ack(d.Tag) })
}

// handle applies one message in one transaction, parks it, or finds that
// there is nothing to do (inbox.Consumer's handle and process).
func (c *consumer) handle(env broker.Envelope) error {
	now := time.Now().UTC()
	tx, err := c.db.Begin()
	if err != nil {
		return fmt.Errorf("inbox: begin: %w", err)
	}
	defer tx.Rollback()
	if c.mistake != "non-idempotent-consumer" {
		// MISTAKE (non-idempotent-consumer): it skips this look into the inbox.
		var seen int
		if err := tx.QueryRow(`SELECT COUNT(*) FROM processed WHERE message_id = ?`, env.ID).Scan(&seen); err != nil {
			return fmt.Errorf("inbox: %w", err)
		}
		if seen > 0 {
			c.log("skip %s: in the inbox", env.ID)
			return nil // a redelivery: the effect is already there
		}
	}
	event, err := domain.Decode(env.Event)
	if err != nil {
		return fmt.Errorf("inbox: %s: %w", env.ID, err) // no poison in these runs
	}
	applied, err := loadApplied(tx, event.AggregateID())
	if err != nil {
		return err
	}
	if c.mistake == "" {
		// Both consumer mistakes apply in arrival order: no sequence check.
		switch {
		case event.Seq() <= applied:
			c.log("skip %s %s#%d: #%d applied", env.ID, event.AggregateID(), event.Seq(), applied)
			return nil
		case event.Seq() > applied+1:
			if err := park(tx, env, event, applied, now); err != nil {
				return err
			}
			c.log("park %s %s#%d: waiting for #%d", env.ID, event.AggregateID(), event.Seq(), applied+1)
			return c.gate.Cross(inbox.BoundaryCommit, tx.Commit)
		}
	}
	if err := c.apply(tx, env.ID, event, now); err != nil {
		return err
	}
	if err := c.drainParked(tx, event.AggregateID(), now); err != nil {
		return err
	}
	if err := c.gate.Cross(inbox.BoundaryCommit, tx.Commit); err != nil {
		return err
	}
	c.log("applied %s %s#%d", env.ID, event.AggregateID(), event.Seq())
	if c.mistake != "dedup-outside-tx" {
		return nil
	}
	// MISTAKE (dedup-outside-tx): the effect is committed; the proof that
	// it was is written by a second transaction. A crash before it and the
	// redelivery is applied again.
	return c.gate.Cross(mistakes.BoundaryRecordProcessed, func() error {
		_, err := c.db.Exec(`INSERT INTO processed (message_id, at) VALUES (?, ?)`, env.ID, now.UnixNano())
		return err
	})
}

// apply writes the effect, the aggregate's new sequence and the inbox row.
func (c *consumer) apply(tx *sql.Tx, messageID string, event domain.Event, now time.Time) error {
	if err := applyEffect(tx, event, messageID, now); err != nil {
		return err
	}
	if _, err := tx.Exec(`INSERT INTO applied (order_id, seq) VALUES (?, ?)
		ON CONFLICT (order_id) DO UPDATE SET seq = excluded.seq`, event.AggregateID(), event.Seq()); err != nil {
		return fmt.Errorf("inbox: %w", err)
	}
	if c.mistake != "" {
		// MISTAKE (both consumer mistakes): no inbox row in the effect's
		// transaction.
		return nil
	}
	if _, err := tx.Exec(`INSERT INTO processed (message_id, at) VALUES (?, ?)`, messageID, now.UnixNano()); err != nil {
		return fmt.Errorf("inbox: %w", err)
	}
	return nil
}

// drainParked applies the parked successors of an aggregate that are now in
// sequence.
func (c *consumer) drainParked(tx *sql.Tx, orderID string, now time.Time) error {
	for {
		applied, err := loadApplied(tx, orderID)
		if err != nil {
			return err
		}
		parked, err := scanJSON[inbox.Parked](tx, `SELECT body FROM parked WHERE order_id = ? AND seq = ?`, orderID, applied+1)
		if err != nil || len(parked) == 0 {
			return err
		}
		if _, err := tx.Exec(`DELETE FROM parked WHERE order_id = ? AND seq = ?`, orderID, applied+1); err != nil {
			return fmt.Errorf("inbox: %w", err)
		}
		event, err := domain.Decode(parked[0].Envelope.Event)
		if err != nil {
			return fmt.Errorf("inbox: %w", err)
		}
		if err := c.apply(tx, parked[0].Envelope.ID, event, now); err != nil {
			return err
		}
	}
}

func loadApplied(tx *sql.Tx, orderID string) (int, error) {
	var seq int
	err := tx.QueryRow(`SELECT seq FROM applied WHERE order_id = ?`, orderID).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("inbox: applied %s: %w", orderID, err)
	}
	return seq, nil
}

func park(tx *sql.Tx, env broker.Envelope, event domain.Event, applied int, now time.Time) error {
	body, err := json.Marshal(inbox.Parked{Envelope: env, Reason: fmt.Sprintf("waiting for #%d", applied+1), At: now})
	if err != nil {
		return fmt.Errorf("inbox: park: %w", err)
	}
	if _, err := tx.Exec(`INSERT OR IGNORE INTO parked (order_id, seq, body) VALUES (?, ?, ?)`, event.AggregateID(), event.Seq(), body); err != nil {
		return fmt.Errorf("inbox: park: %w", err)
	}
	return nil
}

// applyEffect is billing.ApplyEffect in SQL: a ledger entry and the
// account's billed amount.
func applyEffect(tx *sql.Tx, e domain.Event, messageID string, now time.Time) error {
	acc := billing.Account{OrderID: e.AggregateID()}
	err := tx.QueryRow(`SELECT minor, currency, cancelled FROM accounts WHERE order_id = ?`, acc.OrderID).
		Scan(&acc.Billed.Minor, &acc.Billed.Currency, &acc.Cancelled)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("billing: account %s: %w", acc.OrderID, err)
	}
	entry := billing.Entry{OrderID: e.AggregateID(), Sequence: e.Seq(), MessageID: messageID, At: now}
	switch ev := e.(type) {
	case domain.OrderAccepted:
		entry.Kind, entry.Amount = billing.Invoice, ev.Total
		acc.Billed = ev.Total
	case domain.OrderAmended:
		entry.Kind, entry.Amount = billing.Line, ev.Amount
		billed := ev.Amount
		if acc.Billed.Currency != "" {
			if billed, err = acc.Billed.Add(ev.Amount); err != nil {
				return fmt.Errorf("billing: %s#%d: %w", entry.OrderID, entry.Sequence, err)
			}
		}
		acc.Billed = billed
	case domain.OrderCancelled:
		entry.Kind = billing.Credit
		entry.Amount = domain.Money{Minor: -acc.Billed.Minor, Currency: acc.Billed.Currency}
		acc.Billed = domain.Money{Currency: acc.Billed.Currency}
		acc.Cancelled = true
	default:
		return fmt.Errorf("billing: no effect for %s", e.EventType())
	}
	if _, err := tx.Exec(`INSERT INTO ledger (order_id, seq, kind, minor, currency, message_id, at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		entry.OrderID, entry.Sequence, entry.Kind, entry.Amount.Minor, entry.Amount.Currency, entry.MessageID, now.UnixNano()); err != nil {
		return fmt.Errorf("billing: %w", err)
	}
	if _, err := tx.Exec(`INSERT INTO accounts (order_id, minor, currency, cancelled) VALUES (?, ?, ?, ?)
		ON CONFLICT (order_id) DO UPDATE SET minor = excluded.minor, currency = excluded.currency, cancelled = excluded.cancelled`,
		acc.OrderID, acc.Billed.Minor, acc.Billed.Currency, acc.Cancelled); err != nil {
		return fmt.Errorf("billing: %w", err)
	}
	return nil
}
