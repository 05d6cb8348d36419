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

// ParkedAggregate is one aggregate's messages parked behind a gap.
type ParkedAggregate struct {
	AggregateID string
	// Keys are the messages' keys in TableParked (ParkedKey), in sequence
	// order; Parked are the messages, in the same order.
	Keys   []string
	Parked []Parked
}

// ParkedByAggregate returns the messages tx sees parked behind a gap,
// grouped by aggregate: the aggregates in the order of their first key,
// each one's messages in sequence order. What a consumer does about a gap
// (fetch the missing event, reconcile the aggregate with a snapshot) it
// does once per aggregate.
func ParkedByAggregate(tx *store.Tx) []ParkedAggregate {
	var groups []ParkedAggregate
	group := map[string]int{} // aggregate id: its index in groups
	tx.Scan(TableParked, func(key string, v any) bool {
		p := v.(Parked)
		id := p.Envelope.Event.AggregateID
		i, ok := group[id]
		if !ok {
			i = len(groups)
			group[id] = i
			groups = append(groups, ParkedAggregate{AggregateID: id})
		}
		groups[i].Keys = append(groups[i].Keys, key)
		groups[i].Parked = append(groups[i].Parked, p)
		return true
	})
	return groups
}
