package mistakes

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/store"
	"outboxlab/variant"
)

// ParallelWorkers is the reference relay with one change: its claim takes
// every due message, as parallel relay workers do that each take the next
// free row, instead of holding an aggregate back behind its oldest unsent
// message (head-of-line blocking).
//
// WRONG: while an order's first event waits (out its backoff after a
// failed send, or for the relay that holds it frozen, or for its lease),
// the order's later events go: the broker stores the cancel before the
// acceptance, and a downstream service that keeps the last status it read
// (shipping, search) restores "freigegeben" over "storniert". Billing
// parks the gap and holds; a view that trusts the broker's order cannot.
// Not a column of the matrix: labrun scenario released-then-cancelled
// tells it.
//
// Chapter 001 ("Reihenfolge pro Geschäftsobjekt statt globale
// Reihenfolge": "Werden Ereignisse durch parallele Relay-Worker
// vertauscht, kann ein nachgelagerter Dienst einen veralteten Zustand
// wiederherstellen").
func ParallelWorkers() variant.Variant {
	return variant.Variant{
		Name:    "parallel-workers",
		Summary: lang.Text{EN: "claims every due message, as parallel workers do: an order's later event overtakes one that waits", DE: "claimt jede fällige Nachricht, wie parallele Worker es tun: das spätere Ereignis einer Bestellung überholt eines, das wartet"},
		Chapter: "001 \"Reihenfolge pro Geschäftsobjekt\"",
		Expect: map[string]variant.Outcome{
			// An order's later event goes while its first waits: out
			// its backoff after a refused or timed-out send, or for a
			// relay that holds it, dead, frozen, restarting, or paused
			// on a clock ahead.
			"broker-outage":           variant.OutOfOrder,
			"outage-restart":          variant.OutOfOrder,
			"publish-timeout-dropped": variant.OutOfOrder,
			"rejected":                variant.OutOfOrder,
			"stall":                   variant.OutOfOrder,
			"stall-outage":            variant.OutOfOrder,
			"stall-release":           variant.OutOfOrder,
			"failure-conflict":        variant.OutOfOrder,
			"relay-restart":           variant.OutOfOrder,
			"recover-conflict":        variant.OutOfOrder,
			"relay-lost":              variant.OutOfOrder,
			"clock-skew":              variant.OutOfOrder,
			"relay.after-claim":       variant.OutOfOrder,
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			r, err := newRelay(env, nil)
			if err != nil {
				return nil, err
			}
			r.claim = r.claimEveryDue
			return parallelRelay{r}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

// claimEveryDue is outbox.Relay.ClaimDue without head-of-line blocking.
// DO NOT COPY.
func (r *relay) claimEveryDue() ([]outbox.Message, error) {
	now := r.Clock.Now()
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	var batch []outbox.Message
	// MISTAKE: no aggregate is blocked: a message that cannot be claimed
	// is skipped, and its aggregate's later messages are claimed past it.
	tx.ScanIndex(outbox.Table, outbox.IndexUnsent, func(_ string, v any) bool {
		m := v.(outbox.Message)
		if err := m.Claim(r.cfg.Owner, now, now.Add(r.cfg.Lease)); err != nil {
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

// parallelRelay wakes when any message is due, as its claim takes any:
// the reference's NextWake looks at each aggregate's oldest unsent
// message only.
type parallelRelay struct{ *relay }

// NextWake implements variant.Relay: the earliest time any unsent message
// may be claimed, not before the pause after failed sends.
func (r parallelRelay) NextWake() (time.Time, bool) {
	var next time.Time
	found := false
	r.DB.ScanIndex(outbox.Table, outbox.IndexUnsent, func(_ string, v any) bool {
		if at, ok := v.(outbox.Message).ClaimableAt(); ok && (!found || at.Before(next)) {
			next, found = at, true
		}
		return true
	})
	if found && next.Before(r.pausedUntil) {
		next = r.pausedUntil
	}
	return next, found
}
