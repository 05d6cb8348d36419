package mistakes

import (
	"errors"
	"fmt"
	"math"
	"time"

	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/lab/check"
	"outboxlab/lab/variant"
	"outboxlab/outbox"
	"outboxlab/store"
)

// relay is the reference relay with the reference's own field names, so
// that a mistake's version of a reference method reads as the original with
// one change (go test ./mistakes -run OneChange -v prints each diff). It
// embeds the reference (DB, Broker, Gate, Clock, Rand and the methods a
// mistake keeps) and writes out Step, whose parts a mistake replaces:
// claim and recordSent are the reference's own unless a mistake sets them.
type relay struct {
	variant.RelayAdapter
	cfg         outbox.Config
	failedSteps int
	pausedUntil time.Time
	claim       func() ([]outbox.Message, error)
	recordSent  func(outbox.Message) (lost bool, err error)
}

// newRelay builds the reference relay for env's process, with the default
// configuration changed by change (if not nil).
func newRelay(env variant.Env, change func(*outbox.Config)) (*relay, error) {
	ref, err := variant.ReferenceRelay(env, change)
	if err != nil {
		return nil, err
	}
	cfg := outbox.DefaultConfig(env.Owner)
	if change != nil {
		change(&cfg)
	}
	r := &relay{RelayAdapter: variant.RelayAdapter{Relay: ref}, cfg: cfg, claim: ref.ClaimDue}
	r.recordSent = r.recordSentFenced
	return r, nil
}

// Step implements variant.Relay with step.
func (r *relay) Step() (bool, error) {
	rep, err := r.step()
	return rep.Did(), err
}

// NextWake is outbox.Relay.NextWake, with the pause step keeps here: the
// embedded reference never pauses, for its own Step does not run.
func (r *relay) NextWake() (time.Time, bool) {
	t, ok := r.RelayAdapter.NextWake()
	if ok && t.Before(r.pausedUntil) {
		t = r.pausedUntil
	}
	return t, ok
}

// step is outbox.Relay.Step, with the claim and the SENT mark the mistake's.
// DO NOT COPY: use outbox.Relay.
func (r *relay) step() (outbox.StepReport, error) {
	var rep outbox.StepReport
	if r.Clock.Now().Before(r.pausedUntil) {
		return rep, nil // the broker failed recently: do not hammer it
	}
	batch, err := r.claim()
	if err != nil {
		return rep, err
	}
	rep.Claimed = len(batch)
	for i, m := range batch {
		err := r.Gate.Cross(outbox.BoundarySend, func() error {
			return r.Broker.Publish(broker.Envelope{ID: m.ID, Event: m.Event})
		})
		if errors.Is(err, effect.ErrCrashed) {
			return rep, fmt.Errorf("outbox: send %s: %w", m.ID, err)
		}
		if err != nil {
			dead, released, err := r.recordFailure(m, err, batch[i+1:])
			if err != nil {
				return rep, err
			}
			rep.Failed++
			rep.Released += released
			if dead {
				rep.DeadLettered++
			}
			r.failedSteps++
			r.pausedUntil = r.Clock.Now().Add(r.cfg.Pause(r.failedSteps))
			return rep, nil
		}
		r.failedSteps = 0
		lost, err := r.recordSent(m)
		if err != nil {
			return rep, err
		}
		if lost {
			rep.LeaseLost++
		} else {
			rep.Sent++
		}
	}
	return rep, nil
}

// recordSentFenced is outbox.Relay's recordSent: SENT, in one transaction,
// only while this relay still holds the lease (Message.MarkSent checks it).
func (r *relay) recordSentFenced(m outbox.Message) (lost bool, err error) {
	now := r.Clock.Now()
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	cur, ok := outbox.Get(tx, m.Key)
	if !ok {
		return true, nil
	}
	if err := cur.MarkSent(r.cfg.Owner, now); err != nil {
		if errors.Is(err, outbox.ErrLeaseLost) || errors.Is(err, outbox.ErrIllegalTransition) {
			return true, nil
		}
		return false, fmt.Errorf("outbox: %w", err)
	}
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

// recordFailure is outbox.Relay's recordFailure: FAILED (or DEAD_LETTER)
// and the rest of the batch released, in one transaction.
func (r *relay) recordFailure(m outbox.Message, cause error, unsent []outbox.Message) (dead bool, released int, err error) {
	now := r.Clock.Now()
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	if cur, ok := outbox.Get(tx, m.Key); ok {
		jitter := 0.0
		if r.cfg.Jitter > 0 {
			jitter = r.Rand.Float64()
		}
		retryAt := now.Add(r.cfg.Backoff(cur.Attempts+1, jitter))
		if err := cur.MarkFailed(r.cfg.Owner, now, cause.Error(), retryAt, r.cfg.MaxAttempts); err == nil {
			tx.Put(outbox.Table, cur.Key, cur)
			dead = cur.Status == outbox.DeadLetter
		}
	}
	for _, u := range unsent {
		if cur, ok := outbox.Get(tx, u.Key); ok && cur.Release(r.cfg.Owner) == nil {
			tx.Put(outbox.Table, cur.Key, cur)
			released++
		}
	}
	err = r.Gate.Cross(outbox.BoundaryMark, tx.Commit)
	if errors.Is(err, store.ErrConflict) {
		return false, 0, nil // another relay wrote these rows meanwhile: they are its now
	}
	if err != nil {
		return false, 0, fmt.Errorf("outbox: mark failed %s: %w", m.ID, err)
	}
	return dead, released, nil
}

// MarkBeforeSend claims messages like the reference relay, but marks each
// SENT before it hands it to the broker.
//
// WRONG: SENT must mean "the broker confirmed it stored the message". If the
// process dies after the mark, or the broker fails, the message is never
// sent again, because it already counts as sent. It is lost, and the outbox
// says otherwise.
//
// Chapter 004, typical mistakes ("Zu früh markiert: ... sendet der
// Versandprozess den Eintrag nie wieder, weil der Eintrag schon als gesendet
// markiert ist. Die Nachricht ist verloren."); chapter 000 section 5.
func MarkBeforeSend() variant.Variant {
	return variant.Variant{
		Name:      "mark-before-send",
		Summary:   "marks a message SENT before the broker confirmed it",
		SummaryDE: "markiert eine Nachricht als SENT, bevor der Broker sie bestätigt hat",
		Chapter:   "004 \"Zu früh markiert\"",
		Expect: map[string]check.Outcome{
			"relay.after-mark":        check.Lost,
			"broker-outage":           check.Lost,
			"outage-backlog":          check.Lost,
			"rejected":                check.Lost,
			"publish-timeout-dropped": check.Lost, // marked SENT, then the send went nowhere
			"relay-restart":           check.Lost, // killed between its mark and its send
			"relay-lost":              check.Lost, // lost between its mark and its send
			"stall-outage":            check.Lost, // marked SENT, frozen, then the broker is down
			"stall-release":           check.Lost, // the same: marked SENT, frozen, the send fails
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			r, err := newRelay(env, nil)
			if err != nil {
				return nil, err
			}
			return &markBeforeSendRelay{r}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

type markBeforeSendRelay struct{ *relay }

// Step implements variant.Relay with step.
func (r *markBeforeSendRelay) Step() (bool, error) {
	rep, err := r.step()
	return rep.Did(), err
}

// step is outbox.Relay.Step with the mark before the send. DO NOT COPY.
func (r *markBeforeSendRelay) step() (outbox.StepReport, error) {
	var rep outbox.StepReport
	if r.Clock.Now().Before(r.pausedUntil) {
		return rep, nil // the broker failed recently: do not hammer it
	}
	batch, err := r.claim()
	if err != nil {
		return rep, err
	}
	rep.Claimed = len(batch)
	for i, m := range batch {
		// MISTAKE: SENT is recorded before the broker has the message: a
		// crash or a broker failure after this commit loses it, and the
		// row says SENT (a failure recorded below finds SENT and changes
		// nothing).
		r.failedSteps = 0
		lost, err := r.recordSent(m)
		if err != nil {
			return rep, err
		}
		if lost {
			rep.LeaseLost++
		} else {
			rep.Sent++
		}
		err = r.Gate.Cross(outbox.BoundarySend, func() error {
			return r.Broker.Publish(broker.Envelope{ID: m.ID, Event: m.Event})
		})
		if errors.Is(err, effect.ErrCrashed) {
			return rep, fmt.Errorf("outbox: send %s: %w", m.ID, err)
		}
		if err != nil {
			dead, released, err := r.recordFailure(m, err, batch[i+1:])
			if err != nil {
				return rep, err
			}
			rep.Failed++
			rep.Released += released
			if dead {
				rep.DeadLettered++
			}
			r.failedSteps++
			r.pausedUntil = r.Clock.Now().Add(r.cfg.Pause(r.failedSteps))
			return rep, nil
		}
	}
	return rep, nil
}

// NoInflightRecovery is a relay whose claims never end: it recovers nothing
// after a restart, and its claims have no lease that could expire (as in
// the course's Java lab, where IN_FLIGHT lasts until someone calls
// recoverInFlightAfterCrash, and nobody does).
//
// WRONG: a relay that dies between claiming and marking leaves the message
// IN_FLIGHT forever. No relay will ever send it, and no alarm rings.
//
// Chapter 000, section 11 ("IN_FLIGHT-Nachrichten werden nach Crash nie wieder
// freigegeben"); chapter 000 section 5.
func NoInflightRecovery() variant.Variant {
	return variant.Variant{
		Name:      "no-inflight-recovery",
		Summary:   "never releases IN_FLIGHT claims after a crash",
		SummaryDE: "gibt IN_FLIGHT-Claims nach einem Absturz nie wieder frei",
		Chapter:   "000 section 11 \"IN_FLIGHT-Nachrichten werden nach Crash nie wieder freigegeben\"",
		Expect: map[string]check.Outcome{
			"relay.after-claim": check.Stuck,
			"relay.after-send":  check.Stuck, // also claimed, and never marked
			"relay.before-mark": check.Stuck,
			"relay-restart":     check.Stuck, // killed holding a claim
			"relay-lost":        check.Stuck, // its claim outlives it: no lease runs out
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			r, err := newRelay(env, func(c *outbox.Config) {
				c.Lease = 100 * 365 * 24 * time.Hour // "no lease": a claim is forever
			})
			if err != nil {
				return nil, err
			}
			return noRecoveryRelay{r}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

type noRecoveryRelay struct{ *relay }

// Recover does nothing. DO NOT COPY.
func (noRecoveryRelay) Recover() error {
	// MISTAKE: nothing is released: the claims this relay held when it
	// died stay IN_FLIGHT, and with an endless lease nobody takes them.
	return nil
}

// NoRetryLimit is the reference relay without a maximum number of attempts.
//
// WRONG: a message the broker refuses every time (too large, a schema it
// rejects) is retried forever. It never becomes a visible dead letter,
// nobody is alerted, the relay spends its time on it, and with
// per-aggregate order every later event of that aggregate waits behind it.
//
// Chapter 000, section 8 ("Retry ohne Grenze ist eine Produktionsgefahr").
func NoRetryLimit() variant.Variant {
	return configMistake("no-retry-limit", "retries forever, never dead-letters", "wiederholt endlos, nie ein Dead Letter",
		"000 section 8 \"Retry ohne Grenze ist eine Produktionsgefahr\"",
		map[string]check.Outcome{"rejected": check.Stuck},
		func(c *outbox.Config) {
			c.MaxAttempts = math.MaxInt // "it will work eventually"
		})
}

// configMistake is the reference with its relay's configuration changed
// by change: a mistake of policy, not of code.
func configMistake(name, summary, summaryDE, chapter string, expect map[string]check.Outcome, change func(*outbox.Config)) variant.Variant {
	return variant.Variant{
		Name: name, Summary: summary, SummaryDE: summaryDE, Chapter: chapter, Expect: expect,
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			ref, err := variant.ReferenceRelay(env, change)
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
// Chapter 003 ("Mehrere Relay-Instanzen können parallel laufen"); chapter 000
// section 5 ("Mehrere Publisher-Instanzen dürfen nicht dieselbe Nachricht
// gleichzeitig senden").
func NoFencing() variant.Variant {
	return variant.Variant{
		Name:      "no-fencing",
		Summary:   "records SENT without checking that it still holds the lease",
		SummaryDE: "trägt SENT ein, ohne zu prüfen, ob es die Lease noch hält",
		Chapter:   "003 \"Mehrere Relay-Instanzen\", 000 section 5",
		Expect: map[string]check.Outcome{
			"stall": check.Unsafe,
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

// CleanupByAge is the reference relay with one change in its retention
// cleanup: it deletes every message older than the retention period,
// whatever its status.
//
// WRONG: only SENT messages may go. A FAILED message is still to be sent,
// and a DEAD_LETTER waits for an operator who fixes its cause and replays
// it, perhaps weeks later. Deleted, it is gone without a trace: the change
// was committed, the broker never got it, and nothing says so any more.
//
// Chapter 001 ("Aufbewahrung und Bereinigung dürfen die Nachweisführung nicht
// vorzeitig zerstören"); chapter 003 (retention gives a replay window); chapter
// 000 section 5 (dead letters stay visible and replayable).
func CleanupByAge() variant.Variant {
	return variant.Variant{
		Name:      "cleanup-by-age",
		Summary:   "retention deletes every message older than seven days, dead letters included",
		SummaryDE: "die Aufbewahrung löscht jede Nachricht älter als sieben Tage, Dead Letters eingeschlossen",
		Chapter:   "001 \"Aufbewahrung und Bereinigung\", 003 retention, 000 section 5",
		Expect: map[string]check.Outcome{
			"rejected": check.Lost, // the dead letter is deleted before the operator can replay it
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			r, err := newRelay(env, nil)
			if err != nil {
				return nil, err
			}
			return &cleanupByAgeRelay{r}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

type cleanupByAgeRelay struct{ *relay }

// Cleanup is outbox.Relay.Cleanup with one condition changed. DO NOT COPY.
func (r *cleanupByAgeRelay) Cleanup() (int, error) {
	cutoff := r.Clock.Now().Add(-r.cfg.Retention)
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	n := 0
	tx.Scan(outbox.Table, func(key string, v any) bool {
		// MISTAKE: the age alone decides; the reference deletes only SENT
		// messages (m.Status == Sent && m.SentAt.Before(cutoff)).
		if m := v.(outbox.Message); m.CreatedAt.Before(cutoff) {
			tx.Delete(outbox.Table, key)
			n++
		}
		return true
	})
	if n == 0 {
		return 0, nil
	}
	if err := r.Gate.Cross(outbox.BoundaryCleanup, tx.Commit); err != nil {
		return 0, fmt.Errorf("outbox: cleanup: %w", err)
	}
	return n, nil
}

// RecoverAll is the reference relay with one change in its recovery: after
// a restart it releases every IN_FLIGHT message, not only its own. It is
// chapter 000's recoverInFlight taken literally (UPDATE outbox SET
// status = 'PENDING' WHERE status = 'IN_FLIGHT').
//
// WRONG: with one relay this is harmless, which is why it looks right. With
// several, a restarting relay takes the live claims of the others away:
// another relay is sending the message right now, and the restarted one
// (or a third) claims and sends it again. Two live owners of one message is
// exactly what the lease was for. A relay may release only its own claims;
// the others' are taken over when their leases run out.
//
// Chapter 000 section 5 (recoverInFlight); chapter 003 ("Mehrere
// Relay-Instanzen").
func RecoverAll() variant.Variant {
	return variant.Variant{
		Name:      "recover-all",
		Summary:   "a restart releases every IN_FLIGHT message, also other relays' live claims",
		SummaryDE: "ein Neustart gibt jede IN_FLIGHT-Nachricht frei, auch lebende Claims anderer Relays",
		Chapter:   "000 section 5 (recoverInFlight), 003 \"Mehrere Relay-Instanzen\"",
		Expect: map[string]check.Outcome{
			"relay-restart":     check.Unsafe, // relay-1 restarts while relay-2 holds a live claim
			"stall-release":     check.Unsafe, // relay-2 starts while relay-1 holds live claims
			"relay.after-claim": check.Unsafe, // with two relays: the other's claim of a later order
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			r, err := newRelay(env, nil)
			if err != nil {
				return nil, err
			}
			return &recoverAllRelay{r}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

type recoverAllRelay struct{ *relay }

// Recover implements variant.Relay with recover.
func (r *recoverAllRelay) Recover() error {
	_, err := r.recover()
	return err
}

// recover is outbox.Relay.Recover with one condition dropped. DO NOT COPY.
func (r *recoverAllRelay) recover() (int, error) {
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	released := 0
	tx.ScanIndex(outbox.Table, outbox.IndexUnsent, func(_ string, v any) bool {
		m := v.(outbox.Message)
		// MISTAKE: every IN_FLIGHT message; the reference releases only
		// its own (&& m.LeaseOwner == r.cfg.Owner).
		if m.Status == outbox.InFlight {
			if err := m.Release(m.LeaseOwner); err == nil {
				tx.Put(outbox.Table, m.Key, m)
				released++
			}
		}
		return true
	})
	if released == 0 {
		return 0, nil
	}
	err := r.Gate.Cross(outbox.BoundaryRecover, tx.Commit)
	if errors.Is(err, store.ErrConflict) {
		return 0, nil // another relay took them over meanwhile
	}
	if err != nil {
		return 0, fmt.Errorf("outbox: recover: %w", err)
	}
	return released, nil
}

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
		Name:      "claim-without-lock",
		Summary:   "reads due messages, then claims each in its own transaction without re-checking (no SKIP LOCKED)",
		SummaryDE: "liest fällige Nachrichten und claimt jede in eigener Transaktion ohne erneute Prüfung (kein SKIP LOCKED)",
		Chapter:   "003 \"FOR UPDATE SKIP LOCKED\", 000 section 5",
		Expect: map[string]check.Outcome{
			// With two relays, whenever both read a message before
			// either claims it: when both wake from their pause after
			// failed sends at once, and wherever the seeded
			// interleaving lets one relay claim between the other's
			// read and write.
			"broker-outage": check.Unsafe, // both wake from their pause after a refusal
			// outage-restart adds to broker-outage (sim.Point.Like), and
			// its restart moves the relays' wake-ups apart: at the
			// matrix's seed neither run races; seeds 2, 4, 6, 7 and 8
			// with two relays do (labrun scenario outage-restart
			// --variant claim-without-lock --seed 2 --relays 2).
			"outage-restart": check.OK,
			"relay-restart":  check.Unsafe,
			"stall-release":  check.Unsafe,
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
		Name:      "offset-by-id",
		Summary:   "claims only ids above the highest id it sent: skips a transaction that drew its id early and committed late",
		SummaryDE: "claimt nur IDs über der höchsten gesendeten: überspringt eine Transaktion, die ihre ID früh zog und spät committete",
		Chapter:   "003 (polling), watermill issue 311",
		Expect: map[string]check.Outcome{
			// o-2's acceptance drew id 2 and committed after ids 3 and 4
			// were sent: it waits below the offset forever, and billing
			// holds o-2's cancel waiting for it. The lab says STUCK, not
			// LOST, because the outbox still shows the message unsent; a
			// relay that tails a table without a status column loses it.
			"slow-commit": check.Stuck,
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
	// MISTAKE: the scan reads each row's key (its id), for the offset
	// below.
	tx.ScanIndex(outbox.Table, outbox.IndexUnsent, func(key string, v any) bool {
		m := v.(outbox.Message)
		agg := m.Event.AggregateID
		// MISTAKE: only ids above the highest one sent; a message
		// committed late with a lower id is never read.
		if key <= r.offset || blocked[agg] {
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

// NextWake is the reference's, but with nothing unsent above the offset
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
