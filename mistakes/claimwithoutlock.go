package mistakes

import (
	"errors"
	"fmt"

	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/store"
	"outboxlab/variant"
)

// ClaimWithoutLock is the reference relay with one change in its claim: it
// reads the due messages first and then claims each in a transaction of its
// own, writing IN_FLIGHT over the row as it read it.
//
// WRONG: between the read and the write another relay may claim the same
// message; the blind write does not see that and takes it over while the
// other's lease is live. Both send. It is "SELECT ... WHERE status =
// 'PENDING'" followed by "UPDATE ... WHERE id = ?" without FOR UPDATE SKIP
// LOCKED: under READ COMMITTED the update waits for the other's lock and
// then overwrites. The reference reads and claims in one transaction, and
// the database refuses the second of two conflicting claims.
//
// Chapter 003 ("FOR UPDATE SKIP LOCKED", "Mehrere Relay-Instanzen"); chapter 000
// section 5.
func ClaimWithoutLock() variant.Variant {
	return variant.Variant{
		Name:    "claim-without-lock",
		Summary: lang.Text{EN: "reads due messages, then claims each in its own transaction without re-checking (no SKIP LOCKED)", DE: "liest fällige Nachrichten und claimt jede in eigener Transaktion ohne erneute Prüfung (kein SKIP LOCKED)"},
		Chapter: "003 \"FOR UPDATE SKIP LOCKED\", 000 section 5",
		Expect: map[string]variant.Outcome{
			// With two relays, whenever both read a message before
			// either claims it: when both wake from their pause after
			// failed sends at once, and wherever the seeded
			// interleaving lets one relay claim between the other's
			// read and write.
			"broker-outage": variant.Unsafe, // both wake from their pause after a refusal
			// outage-restart adds to broker-outage (sim.Point.Like), and
			// its restart moves the relays' wake-ups apart: at the
			// matrix's seed neither run races; seeds 2, 4, 6, 7 and 8
			// with two relays do (labrun scenario outage-restart
			// --variant claim-without-lock --seed 2 --relays 2).
			"outage-restart": variant.OK,
			"relay-restart":  variant.Unsafe,
			// Two relays that claim one message at once also pass one
			// another: the one whose claim of o-1#1 is overwritten
			// holds o-1 back no more, and sends its later events while
			// o-1#1 still waits (for its backoff, or the other relay).
			"stall-release": variant.OutOfOrder,
			"rejected":      variant.OutOfOrder,
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			r, err := newRelay(env, nil)
			if err != nil {
				return nil, err
			}
			r.claim = r.claimWithoutLock
			return r, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

// claimWithoutLock is outbox.Relay.ClaimDue with the read and the claims in
// separate transactions. DO NOT COPY.
func (r *relay) claimWithoutLock() ([]outbox.Message, error) {
	now := r.Clock.Now()
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	var batch []outbox.Message
	blocked := map[string]bool{}
	tx.ScanIndex(outbox.Table, outbox.IndexUnsent, func(_ string, v any) bool {
		m := v.(outbox.Message)
		agg := m.Event.AggregateID
		if blocked[agg] {
			return true
		}
		if err := m.Claim(r.cfg.Owner, now, now.Add(r.cfg.Lease)); err != nil {
			blocked[agg] = true
			return true
		}
		// MISTAKE: the claim is not written here, in the transaction that
		// read the row (the loop below writes it).
		batch = append(batch, m)
		return len(batch) < r.cfg.BatchSize
	})
	// MISTAKE: each claim is written in a transaction of its own, over the
	// row as it was read: if another relay claimed it since, this write
	// takes it over. The reference writes the claims in the transaction
	// that read them, so that the database refuses the second of two.
	var claimed []outbox.Message
	for _, m := range batch {
		claim := r.DB.Begin(r.cfg.Owner)
		claim.Put(outbox.Table, m.Key, m)
		err := r.Gate.Cross(outbox.BoundaryClaim, claim.Commit)
		claim.Rollback()
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return claimed, fmt.Errorf("outbox: claim: %w", err)
		}
		claimed = append(claimed, m)
	}
	return claimed, nil
}
