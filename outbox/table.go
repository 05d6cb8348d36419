package outbox

import (
	"fmt"
	"time"

	"outboxlab/domain"
	"outboxlab/store"
)

// Table is the name of the outbox table; IndexUnsent is its partial index of
// the messages that are not SENT (chapter 003's idx_outbox_unprocessed).
const (
	Table       = "outbox"
	IndexUnsent = "unsent"
	// Sequence is the store sequence the messages' keys are drawn from.
	Sequence = "outbox_seq"
)

// Install creates the outbox tables in db.
func Install(db *store.DB) error {
	if err := db.CreateTable(Table, store.Index{Name: IndexUnsent, Where: func(v any) bool { return v.(Message).Unsent() }}); err != nil {
		return fmt.Errorf("outbox: install: %w", err)
	}
	return nil
}

// Append writes a PENDING message for event into the outbox inside tx: the
// business change and the intention to publish it commit together, or not
// at all. id is the stable message id the consumer will deduplicate by.
func Append(tx *store.Tx, id string, event domain.Event, now time.Time) (Message, error) {
	rec, err := domain.Encode(event)
	if err != nil {
		return Message{}, fmt.Errorf("outbox: append: %w", err)
	}
	return AppendRecord(tx, id, rec, now)
}

// AppendRecord is Append for an already encoded event.
func AppendRecord(tx *store.Tx, id string, rec domain.Record, now time.Time) (Message, error) {
	m := Message{
		// Drawn now, not at commit: a message written later may commit
		// earlier and so be visible first (see store.DB.NextVal).
		Key:           store.SeqKey("", tx.NextVal(Sequence)),
		ID:            id,
		Event:         rec,
		CreatedAt:     now,
		Status:        Pending,
		NextAttemptAt: now,
	}
	// Insert, not Put: two transactions that drew the same key must not
	// overwrite each other's message; the second one fails to commit.
	if err := tx.Insert(Table, m.Key, m); err != nil {
		return Message{}, fmt.Errorf("outbox: append %s: %w", id, err)
	}
	return m, nil
}

// Get reads one message by key inside tx.
func Get(tx *store.Tx, key string) (Message, bool) {
	v, ok := tx.Get(Table, key)
	if !ok {
		return Message{}, false
	}
	return v.(Message), true
}

// All returns every message committed in db, oldest first.
func All(db *store.DB) []Message { return store.Values[Message](db, Table) }

// Unsent returns every committed message that is not SENT, oldest first.
// It reads the partial index, so its cost does not grow with the SENT rows.
func Unsent(db *store.DB) []Message {
	tx := db.Begin("metrics")
	defer tx.Rollback()
	var msgs []Message
	tx.ScanIndex(Table, IndexUnsent, func(_ string, v any) bool {
		msgs = append(msgs, v.(Message))
		return true
	})
	return msgs
}

// OldestUnsent returns the oldest message that is not SENT, cheaply: it is
// the first entry of the unsent index.
func OldestUnsent(db *store.DB) (Message, bool) {
	tx := db.Begin("metrics")
	defer tx.Rollback()
	var oldest Message
	found := false
	tx.ScanIndex(Table, IndexUnsent, func(_ string, v any) bool {
		oldest, found = v.(Message), true
		return false
	})
	return oldest, found
}
