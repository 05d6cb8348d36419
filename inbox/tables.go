package inbox

import (
	"fmt"

	"outboxlab/store"
)

// The consumer's tables. They live in the consumer's own database, next to
// the effects they guard, so that a transaction holds both.
const (
	// TableProcessed, the inbox proper, holds the ids of processed messages
	// (the idempotency keys).
	TableProcessed = "inbox"
	// TableApplied holds, per aggregate, the sequence number of the last
	// event applied: the consumer's ordering state.
	TableApplied = "applied"
	// TableParked holds messages waiting for a missing earlier event, keyed
	// by aggregate and sequence.
	TableParked = "parked"
	// TableDead holds messages the consumer can never process, keyed by
	// message id.
	TableDead = "dead_letters"
	// TableFailures counts failed processing attempts by message id.
	TableFailures = "failures"
)

// Install creates the consumer's tables in db.
func Install(db *store.DB) error {
	for _, t := range []string{TableProcessed, TableApplied, TableParked, TableDead, TableFailures} {
		if err := db.CreateTable(t); err != nil {
			return fmt.Errorf("inbox: install: %w", err)
		}
	}
	return nil
}

// LoadApplied returns the sequence number of the last event of aggregate
// applied, 0 for none.
func LoadApplied(tx *store.Tx, aggregateID string) int {
	if v, ok := tx.Get(TableApplied, aggregateID); ok {
		return v.(int)
	}
	return 0
}

// SetApplied records seq as the last event of aggregate applied.
func SetApplied(tx *store.Tx, aggregateID string, seq int) {
	tx.Put(TableApplied, aggregateID, seq)
}
