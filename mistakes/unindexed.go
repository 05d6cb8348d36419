package mistakes

import (
	"errors"
	"fmt"

	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/store"
	"outboxlab/variant"
)

// UnindexedOutbox is the reference relay with one change in its claim: it
// reads the whole outbox table for due messages instead of the partial
// index of unsent ones, as a relay does whose table has no index on
// (status, next_attempt_at, created_at), or chapter 003's partial index
// WHERE processed_at IS NULL.
//
// WRONG, but not in what arrives: every poll is a sequential scan of every
// row ever written and not yet cleaned up, SENT ones included, so it gets
// slower as the table grows (2,000 messages a day are about 730,000 a
// year). The checker finds nothing to fault in the business; the figure
// shows it: the rows each claim reads (labrun scenario growing-outbox
// --format metrics).
//
// Chapter 000 section 11 ("Outbox-Tabelle hat keinen passenden Index"),
// chapter 003 ("Ohne diesen Index wird aus jedem Poll ein vollständiger
// sequenzieller Scan"), chapter 004 ("Wachsende Outbox").
func UnindexedOutbox() variant.Variant {
	return variant.Variant{
		Name:       "unindexed-outbox",
		Summary:    lang.Text{EN: "claims by reading the whole outbox table, not its index of unsent messages: each poll reads every row", DE: "claimt, indem es die ganze Outbox-Tabelle liest statt ihres Index der ungesendeten: jeder Poll liest jede Zeile"},
		Chapter:    "000 section 11, 003 \"partieller Index\", 004 \"Wachsende Outbox\"",
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			r, err := newRelay(env, nil)
			if err != nil {
				return nil, err
			}
			r.claim = r.claimByScan
			return r, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

// claimByScan is outbox.Relay.ClaimDue reading the table, not the index.
// DO NOT COPY.
func (r *relay) claimByScan() ([]outbox.Message, error) {
	now := r.Clock.Now()
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	var batch []outbox.Message
	blocked := map[string]bool{}
	// MISTAKE: every row of the table, SENT ones included, for the few unsent.
	tx.Scan(outbox.Table, func(_ string, v any) bool {
		m := v.(outbox.Message)
		agg := m.Event.AggregateID
		if !m.Unsent() || blocked[agg] {
			return true
		}
		if err := m.Claim(r.cfg.Owner, now, now.Add(r.cfg.Lease)); err != nil {
			blocked[agg] = true
			return true
		}
		tx.Put(outbox.Table, m.Key, m)
		batch = append(batch, m)
		return len(batch) < r.cfg.BatchSize
	})
	if len(batch) == 0 {
		return nil, nil
	}
	err := r.Gate.Cross(outbox.BoundaryClaim, tx.Commit)
	if errors.Is(err, store.ErrConflict) {
		return nil, nil // another relay claimed some of these first: skip them
	}
	if err != nil {
		return nil, fmt.Errorf("outbox: claim: %w", err)
	}
	return batch, nil
}
