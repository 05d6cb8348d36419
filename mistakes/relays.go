package mistakes

import (
	"errors"
	"fmt"
	"math"
	"time"

	"outboxlab/broker"
	"outboxlab/check"
	"outboxlab/effect"
	"outboxlab/outbox"
	"outboxlab/store"
	"outboxlab/variant"
)

// MarkBeforeSend claims messages like the reference relay, but marks each
// SENT before it hands it to the broker.
//
// WRONG: SENT must mean "the broker confirmed it stored the message". If the
// process dies after the mark, or the broker fails, the message is never
// sent again, because it already counts as sent. It is lost, and the outbox
// says otherwise.
//
// Seed 004, typical mistakes ("Zu früh markiert: ... sendet der
// Versandprozess den Eintrag nie wieder, weil der Eintrag schon als gesendet
// markiert ist. Die Nachricht ist verloren."); seed 000 section 5.
func MarkBeforeSend() variant.Variant {
	return variant.Variant{
		Name:    "mark-before-send",
		Summary: "marks a message SENT before the broker confirmed it",
		Seed:    "004 \"Zu früh markiert\"",
		Expect: map[string]check.Outcome{
			"relay.after-mark":        check.Lost,
			"broker-outage":           check.Lost,
			"rejected":                check.Lost,
			"publish-timeout-dropped": check.Lost, // marked SENT, then the send went nowhere
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			ref, err := variant.ReferenceRelay(env, nil)
			if err != nil {
				return nil, err
			}
			return &markBeforeSendRelay{RelayAdapter: variant.RelayAdapter{Relay: ref}, env: env}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

type markBeforeSendRelay struct {
	variant.RelayAdapter
	env variant.Env
}

// Step marks, then sends. DO NOT COPY.
func (r *markBeforeSendRelay) Step() (bool, error) {
	batch, err := r.ClaimDue()
	if err != nil || len(batch) == 0 {
		return false, err
	}
	for _, m := range batch {
		tx := r.env.OrderDB.Begin(r.env.Owner)
		cur, _ := outbox.Get(tx, m.Key)
		if err := cur.MarkSent(r.env.Owner, r.env.Clock.Now()); err != nil {
			tx.Rollback()
			continue
		}
		tx.Put(outbox.Table, cur.Key, cur)
		// SENT is now durable, and nothing has been sent.
		if err := r.env.Gate.Cross(outbox.BoundaryMark, tx.Commit); err != nil {
			return true, fmt.Errorf("mark-before-send: %w", err)
		}
		err := r.env.Gate.Cross(outbox.BoundarySend, func() error {
			return r.env.Broker.Publish(broker.Envelope{ID: m.ID, Event: m.Event})
		})
		if errors.Is(err, effect.ErrCrashed) {
			return true, err
		}
		// A broker error is swallowed: the row says SENT, so nobody retries.
	}
	return true, nil
}

// NoInflightRecovery is a relay whose claims never end: it recovers nothing
// after a restart, and its claims have no lease that could expire (as in
// the course's Java lab, where IN_FLIGHT lasts until someone calls
// recoverInFlightAfterCrash, and nobody does).
//
// WRONG: a relay that dies between claiming and marking leaves the message
// IN_FLIGHT forever. No relay will ever send it, and no alarm rings.
//
// Seed 000, section 11 ("IN_FLIGHT-Nachrichten werden nach Crash nie wieder
// freigegeben"); seed 000 section 5.
func NoInflightRecovery() variant.Variant {
	return variant.Variant{
		Name:    "no-inflight-recovery",
		Summary: "never releases IN_FLIGHT claims after a crash",
		Seed:    "000 section 11 \"IN_FLIGHT-Nachrichten werden nach Crash nie wieder freigegeben\"",
		Expect: map[string]check.Outcome{
			"relay.after-claim": check.Stuck,
			"relay.after-send":  check.Stuck, // also claimed, and never marked
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			ref, err := variant.ReferenceRelay(env, func(c *outbox.Config) {
				c.Lease = 100 * 365 * 24 * time.Hour // "no lease": a claim is forever
			})
			if err != nil {
				return nil, err
			}
			return noRecoveryRelay{variant.RelayAdapter{Relay: ref}}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

type noRecoveryRelay struct{ variant.RelayAdapter }

// Recover does nothing. DO NOT COPY.
func (noRecoveryRelay) Recover() error { return nil }

// NoRetryLimit is the reference relay without a maximum number of attempts.
//
// WRONG: a message the broker refuses every time (too large, a schema it
// rejects) is retried forever. It never becomes a visible dead letter,
// nobody is alerted, the relay spends its time on it, and with
// per-aggregate order every later event of that aggregate waits behind it.
//
// Seed 000, section 8 ("Retry ohne Grenze ist eine Produktionsgefahr").
func NoRetryLimit() variant.Variant {
	return variant.Variant{
		Name:    "no-retry-limit",
		Summary: "retries forever, never dead-letters",
		Seed:    "000 section 8 \"Retry ohne Grenze ist eine Produktionsgefahr\"",
		Expect: map[string]check.Outcome{
			"rejected": check.Stuck,
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			ref, err := variant.ReferenceRelay(env, func(c *outbox.Config) {
				c.MaxAttempts = math.MaxInt // "it will work eventually"
			})
			if err != nil {
				return nil, err
			}
			return variant.RelayAdapter{Relay: ref}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

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
// Seed 003 ("Mehrere Relay-Instanzen können parallel laufen"); seed 000
// section 5 ("Mehrere Publisher-Instanzen dürfen nicht dieselbe Nachricht
// gleichzeitig senden").
func NoFencing() variant.Variant {
	return variant.Variant{
		Name:    "no-fencing",
		Summary: "records SENT without checking that it still holds the lease",
		Seed:    "003 \"Mehrere Relay-Instanzen\", 000 section 5",
		Expect: map[string]check.Outcome{
			"stall": check.Unsafe,
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			ref, err := variant.ReferenceRelay(env, nil)
			if err != nil {
				return nil, err
			}
			return &noFencingRelay{RelayAdapter: variant.RelayAdapter{Relay: ref}, env: env}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

type noFencingRelay struct {
	variant.RelayAdapter
	env variant.Env
}

// Step claims and sends like the reference, and records a failed send
// like it (the rest of the batch waits for its lease to run out). DO NOT
// COPY.
func (r *noFencingRelay) Step() (bool, error) {
	batch, err := r.ClaimDue()
	if err != nil || len(batch) == 0 {
		return false, err
	}
	for _, m := range batch {
		err := r.env.Gate.Cross(outbox.BoundarySend, func() error {
			return r.env.Broker.Publish(broker.Envelope{ID: m.ID, Event: m.Event})
		})
		if errors.Is(err, effect.ErrCrashed) {
			return true, err
		}
		if err != nil {
			return true, r.recordFailure(m, err)
		}
		tx := r.env.OrderDB.Begin(r.env.Owner)
		cur, _ := outbox.Get(tx, m.Key)
		// MISTAKE: SENT is written without cur.MarkSent's lease check: no
		// fence. A relay that lost its lease overwrites the new owner's
		// outcome.
		cur.Status, cur.SentAt, cur.LastError = outbox.Sent, r.env.Clock.Now(), ""
		cur.LeaseOwner, cur.ClaimedAt, cur.LeaseUntil = "", time.Time{}, time.Time{}
		tx.Put(outbox.Table, cur.Key, cur)
		err = r.env.Gate.Cross(outbox.BoundaryMark, tx.Commit)
		tx.Rollback()
		if err != nil && !errors.Is(err, store.ErrConflict) {
			return true, fmt.Errorf("no-fencing: %w", err)
		}
	}
	return true, nil
}

// recordFailure counts a failed send with the reference's backoff and
// limit, fenced by MarkFailed's lease check.
func (r *noFencingRelay) recordFailure(m outbox.Message, cause error) error {
	cfg := outbox.DefaultConfig(r.env.Owner)
	now := r.env.Clock.Now()
	tx := r.env.OrderDB.Begin(r.env.Owner)
	defer tx.Rollback()
	cur, _ := outbox.Get(tx, m.Key)
	if err := cur.MarkFailed(r.env.Owner, now, cause.Error(), now.Add(cfg.Backoff(cur.Attempts+1, 0)), cfg.MaxAttempts); err != nil {
		return nil // the lease ran out: another relay owns it
	}
	tx.Put(outbox.Table, cur.Key, cur)
	if err := r.env.Gate.Cross(outbox.BoundaryMark, tx.Commit); err != nil && !errors.Is(err, store.ErrConflict) {
		return fmt.Errorf("no-fencing: %w", err)
	}
	return nil
}

// CleanupByAge is the reference relay with one change in its retention
// cleanup: it deletes every message older than the retention period,
// whatever its status.
//
// WRONG: only SENT messages may go. A FAILED message is still to be sent,
// and a DEAD_LETTER waits for an operator who fixes its cause and replays
// it, perhaps weeks later. Deleted, it is gone without a trace: the change
// was committed, the broker never got it, and nothing says so any more.
//
// Seed 001 ("Aufbewahrung und Bereinigung dürfen die Nachweisführung nicht
// vorzeitig zerstören"); seed 003 (retention gives a replay window); seed
// 000 section 5 (dead letters stay visible and replayable).
func CleanupByAge() variant.Variant {
	return variant.Variant{
		Name:    "cleanup-by-age",
		Summary: "retention deletes every message older than seven days, dead letters included",
		Seed:    "001 \"Aufbewahrung und Bereinigung\", 003 retention, 000 section 5",
		Expect: map[string]check.Outcome{
			"rejected": check.Lost, // the dead letter is deleted before the operator can replay it
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			ref, err := variant.ReferenceRelay(env, nil)
			if err != nil {
				return nil, err
			}
			return &cleanupByAgeRelay{RelayAdapter: variant.RelayAdapter{Relay: ref}, env: env}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

type cleanupByAgeRelay struct {
	variant.RelayAdapter
	env variant.Env
}

// Cleanup is the reference's outbox.Relay.Cleanup with one line changed.
// DO NOT COPY.
func (r *cleanupByAgeRelay) Cleanup() (int, error) {
	cutoff := r.env.Clock.Now().Add(-outbox.DefaultConfig(r.env.Owner).Retention)
	tx := r.env.OrderDB.Begin(r.env.Owner)
	defer tx.Rollback()
	n := 0
	tx.Scan(outbox.Table, func(key string, v any) bool {
		// MISTAKE: the age alone decides; the reference deletes only
		// messages that are SENT (m.Status == outbox.Sent && m.SentAt
		// before the cutoff).
		if m := v.(outbox.Message); m.CreatedAt.Before(cutoff) {
			tx.Delete(outbox.Table, key)
			n++
		}
		return true
	})
	if n == 0 {
		return 0, nil
	}
	if err := r.env.Gate.Cross(outbox.BoundaryCleanup, tx.Commit); err != nil {
		return 0, fmt.Errorf("cleanup-by-age: %w", err)
	}
	return n, nil
}
