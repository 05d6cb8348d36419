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

// OffsetByID is the reference relay with one change in its claim: it
// remembers the highest id it has sent and claims only messages above it,
// as a relay does that polls "WHERE id > :last_sent ORDER BY id".
//
// WRONG: ids are drawn when a transaction writes its row, not when it
// commits. A transaction that drew id 2 and commits after the one that
// drew id 3 is invisible when the relay reads id 3 and moves its offset
// past it; when it commits, it is below the offset and never read. It
// waits in the outbox forever, and every later event of its order waits
// for it downstream. The reference claims by status, not by
// position; a relay that must tail by position needs a horizon that waits
// for older open transactions (PostgreSQL: pg_snapshot_xmin), or the
// commit log's order (the cdc variant).
//
// watermill issue 311; chapter 003 (polling the outbox).
func OffsetByID() variant.Variant {
	return variant.Variant{
		Name:    "offset-by-id",
		Summary: lang.Text{EN: "claims only ids above the highest id it sent: skips a transaction that drew its id early and committed late", DE: "claimt nur IDs über der höchsten gesendeten: überspringt eine Transaktion, die ihre ID früh zog und spät committete"},
		Chapter: "003 (polling), watermill issue 311",
		Expect: map[string]variant.Outcome{
			// o-2's acceptance drew id 2 and committed after ids 3 and 4
			// were sent: it waits below the offset forever, and billing
			// holds o-2's cancel waiting for it. The lab says STUCK, not
			// LOST, because the outbox still shows the message unsent; a
			// relay that tails a table without a status column loses it.
			"slow-commit": variant.Stuck,
		},
		// One reader with one offset, as one consumer of a log.
		MaxRelays:  1,
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			r, err := newRelay(env, nil)
			if err != nil {
				return nil, err
			}
			o := &offsetRelay{relay: r, offset: watermark(r.DB, r.cfg.Owner)}
			r.claim, r.recordSent = o.claimAboveOffset, o.recordSentAndMove
			return o, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

type offsetRelay struct {
	*relay
	offset string // the highest id sent; ids are zero-padded, so they sort
}

// claimAboveOffset is outbox.Relay.ClaimDue restricted to ids above the
// offset. DO NOT COPY.
func (r *offsetRelay) claimAboveOffset() ([]outbox.Message, error) {
	now := r.Clock.Now()
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	var batch []outbox.Message
	blocked := map[string]bool{}
	tx.ScanIndex(outbox.Table, outbox.IndexUnsent, func(_ string, v any) bool {
		m := v.(outbox.Message)
		agg := m.Event.AggregateID
		// MISTAKE: only ids above the highest one sent; a message
		// committed late with a lower id is never read.
		if m.Key <= r.offset || blocked[agg] {
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

// NextWake is the frame's (variant.RelayAdapter's), but with nothing unsent above the offset
// the relay waits for nothing: what lies below it is never read again.
func (r *offsetRelay) NextWake() (time.Time, bool) {
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	above := false
	tx.ScanIndex(outbox.Table, outbox.IndexUnsent, func(key string, _ any) bool {
		above = key > r.offset
		return !above
	})
	if !above {
		return time.Time{}, false
	}
	return r.relay.NextWake()
}

// recordSentAndMove records SENT as the reference does and moves the
// offset up to the highest SENT id with nothing unsent below it: a FAILED
// message holds the offset back until it is sent, as a log reader retries
// where it stands.
func (r *offsetRelay) recordSentAndMove(m outbox.Message) (bool, error) {
	lost, err := r.recordSentFenced(m)
	if err == nil && !lost {
		r.offset = max(r.offset, watermark(r.DB, r.cfg.Owner))
	}
	return lost, err
}

// watermark returns the highest SENT id with no unsent id below it, among
// the rows committed now. A row whose transaction is still open is not
// among them: that is the gap.
func watermark(db *store.DB, owner string) string {
	tx := db.Begin(owner)
	defer tx.Rollback()
	mark := ""
	tx.Scan(outbox.Table, func(key string, v any) bool {
		if v.(outbox.Message).Status != outbox.Sent {
			return false // ids in order: nothing beyond an unsent one counts
		}
		mark = key
		return true
	})
	return mark
}
