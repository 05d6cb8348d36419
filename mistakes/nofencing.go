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

// NoFencing is the reference relay with one change: when it records SENT,
// it does not check that it still holds the message's lease.
//
// WRONG: a relay that froze (a GC pause, a VM migration) longer than its
// lease resumes believing it still owns its batch. Meanwhile another relay
// took the lease over, sent the message and recorded the outcome. The stale
// relay now overwrites that outcome: a terminal SENT is written again, by a
// process that owns nothing. With a failed send it would write FAILED over
// SENT and the message would go out again. A lease is only safe with a
// fence: every write checks the lease it relies on, in the same
// transaction.
//
// Chapter 003 ("Mehrere Relay-Instanzen können parallel laufen"); chapter 000
// section 5 ("Mehrere Publisher-Instanzen dürfen nicht dieselbe Nachricht
// gleichzeitig senden").
func NoFencing() variant.Variant {
	return variant.Variant{
		Name:    "no-fencing",
		Summary: lang.Text{EN: "records SENT without checking that it still holds the lease", DE: "trägt SENT ein, ohne zu prüfen, ob es die Lease noch hält"},
		Chapter: "003 \"Mehrere Relay-Instanzen\", 000 section 5",
		Expect: map[string]variant.Outcome{
			"stall": variant.Unsafe,
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			r, err := newRelay(env, nil)
			if err != nil {
				return nil, err
			}
			r.recordSent = r.recordSentBlind
			return r, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

// recordSentBlind is outbox.Relay's recordSent without the fence. DO NOT
// COPY.
func (r *relay) recordSentBlind(m outbox.Message) (lost bool, err error) {
	now := r.Clock.Now()
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	cur, ok := outbox.Get(tx, m.Key)
	if !ok {
		return true, nil
	}
	// MISTAKE: SENT is written without cur.MarkSent's lease check: no
	// fence. A relay that lost its lease overwrites the new owner's outcome.
	cur.Status, cur.SentAt, cur.LastError = outbox.Sent, now, ""
	cur.LeaseOwner, cur.ClaimedAt, cur.LeaseUntil = "", time.Time{}, time.Time{}
	if r.cfg.DeleteOnSend {
		tx.Delete(outbox.Table, cur.Key)
	} else {
		tx.Put(outbox.Table, cur.Key, cur)
	}
	err = r.Gate.Cross(outbox.BoundaryMark, tx.Commit)
	if errors.Is(err, store.ErrConflict) {
		return true, nil // another relay wrote the row since we read it: it owns it now
	}
	if err != nil {
		return false, fmt.Errorf("outbox: mark sent %s: %w", m.ID, err)
	}
	return false, nil
}
