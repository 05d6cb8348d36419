package outbox

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/store"
)

// The relay's effect boundaries; each is a crash point before and after.
var (
	// BoundaryRecover is the commit that releases a restarted relay's claims.
	BoundaryRecover = effect.Boundary{Process: "relay", Effect: "recover", Kind: effect.Commit}
	// BoundaryClaim is the commit of a batch of claims (relay.after-claim).
	BoundaryClaim = effect.Boundary{Process: "relay", Effect: "claim", Kind: effect.Commit}
	// BoundarySend is the publish to the broker (relay.after-send: the broker
	// acknowledged, SENT is not yet recorded).
	BoundarySend = effect.Boundary{Process: "relay", Effect: "send", Kind: effect.Send}
	// BoundaryMark is the commit that records a send's outcome: SENT, or
	// FAILED / DEAD_LETTER.
	BoundaryMark = effect.Boundary{Process: "relay", Effect: "mark", Kind: effect.Commit}
	// BoundaryReplay is the commit that puts dead letters back to PENDING.
	BoundaryReplay = effect.Boundary{Process: "relay", Effect: "replay", Kind: effect.Commit}
)

// Clock tells the relay the current time.
type Clock interface{ Now() time.Time }

// Rand draws jitter; *math/rand/v2.Rand satisfies it.
type Rand interface{ Float64() float64 }

// Deps are what a relay works with. All are required except Rand, which is
// needed only when Config.Jitter > 0.
type Deps struct {
	// DB is the order service's database, holding the outbox table.
	DB     *store.DB
	Broker broker.Publisher
	// Gate performs the relay's durable effects: effect.Direct{} in
	// production, the simulator's gate under test.
	Gate  effect.Gate
	Clock Clock
	Rand  Rand
}

// Relay moves committed outbox messages to the broker: claim a batch with a
// lease, send each message, and record SENT only after the broker
// acknowledged it. It is at-least-once by design: a crash after the send and
// before the mark sends the message again, and the consumer deduplicates.
type Relay struct {
	cfg Config
	Deps
	// Volatile state, lost in a crash: how many steps in a row failed to
	// send, and until when the relay pauses because of them.
	failedSteps int
	pausedUntil time.Time
}

// NewRelay returns a relay, or an error naming what is wrong with cfg or deps.
func NewRelay(cfg Config, deps Deps) (*Relay, error) {
	errs := []error{cfg.Validate()}
	if deps.DB == nil || deps.Broker == nil || deps.Gate == nil || deps.Clock == nil {
		errs = append(errs, errors.New("outbox: relay: DB, Broker, Gate and Clock are required"))
	}
	if cfg.Jitter > 0 && deps.Rand == nil {
		errs = append(errs, errors.New("outbox: relay: Jitter > 0 needs Rand"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Relay{cfg: cfg, Deps: deps}, nil
}

// Config returns the relay's configuration.
func (r *Relay) Config() Config { return r.cfg }

// StepReport counts what one Step did.
type StepReport struct {
	Claimed, Sent, Failed, DeadLettered, Released, LeaseLost int
	// PausedUntil is, after a step that failed to send, when the relay's
	// pause ends: a Step before then does nothing, and Run sleeps until
	// then.
	PausedUntil time.Time
}

// Did reports whether the step did anything at all.
func (s StepReport) Did() bool { return s.Claimed > 0 }

// Recover releases the claims this relay instance still holds from before a
// crash, so they are sent again without waiting for their leases to expire.
// Claims of other instances are taken over by Step once their leases expire.
func (r *Relay) Recover() (int, error) {
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	released := 0
	tx.ScanIndex(Table, IndexUnsent, func(_ string, v any) bool {
		m := v.(Message)
		if m.Status == InFlight && m.LeaseOwner == r.cfg.Owner {
			if err := m.Release(r.cfg.Owner); err == nil {
				tx.Put(Table, m.Key, m)
				released++
			}
		}
		return true
	})
	if released == 0 {
		return 0, nil
	}
	err := r.Gate.Cross(BoundaryRecover, tx.Commit)
	if errors.Is(err, store.ErrConflict) {
		return 0, nil // another relay took them over meanwhile
	}
	if err != nil {
		return 0, fmt.Errorf("outbox: recover: %w", err)
	}
	return released, nil
}

// Step claims one batch of due messages and sends them in order. A broker
// error ends the batch: the failing message is marked FAILED (or
// DEAD_LETTER), the rest of the batch is released unsent. Step returns
// effect.ErrCrashed (wrapped) when the process crashed at a boundary.
func (r *Relay) Step() (StepReport, error) {
	var rep StepReport
	if r.Clock.Now().Before(r.pausedUntil) {
		return rep, nil // the broker failed recently: do not hammer it
	}
	batch, err := r.ClaimDue()
	if err != nil {
		return rep, err
	}
	rep.Claimed = len(batch)
	for i, m := range batch {
		err := r.Gate.Cross(BoundarySend, func() error {
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
			rep.PausedUntil = r.pausedUntil
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

// ClaimDue takes up to BatchSize due messages in one short transaction,
// the in-memory counterpart of SELECT ... FOR UPDATE SKIP LOCKED: a message
// another relay holds under a live lease is skipped, and when another relay
// commits a claim on one of the same rows first, this claim fails to commit
// (store.ErrConflict) and the relay claims nothing this round; the next
// round sees that relay's claims and skips them.
//
// Events of one aggregate go out in sequence order: once an aggregate's
// oldest unsent message cannot be claimed (it waits out a backoff, another
// relay holds it, or it is a dead letter), its later messages wait too.
// That is head-of-line blocking, the price of per-aggregate order;
// Metrics.Blocked shows it.
func (r *Relay) ClaimDue() ([]Message, error) {
	now := r.Clock.Now()
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	var batch []Message
	blocked := map[string]bool{}
	tx.ScanIndex(Table, IndexUnsent, func(_ string, v any) bool {
		m := v.(Message)
		agg := m.Event.AggregateID
		if blocked[agg] {
			return true
		}
		if err := m.Claim(r.cfg.Owner, now, now.Add(r.cfg.Lease)); err != nil {
			blocked[agg] = true
			return true
		}
		tx.Put(Table, m.Key, m)
		batch = append(batch, m)
		return len(batch) < r.cfg.BatchSize
	})
	if len(batch) == 0 {
		return nil, nil
	}
	err := r.Gate.Cross(BoundaryClaim, tx.Commit)
	if errors.Is(err, store.ErrConflict) {
		return nil, nil // another relay claimed some of these first: skip them
	}
	if err != nil {
		return nil, fmt.Errorf("outbox: claim: %w", err)
	}
	return batch, nil
}

// recordSent marks m SENT. It reports lost=true, and changes nothing, when
// the lease expired meanwhile: another relay may own the message now, and
// will send it again.
func (r *Relay) recordSent(m Message) (lost bool, err error) {
	now := r.Clock.Now()
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	cur, ok := Get(tx, m.Key)
	if !ok {
		return true, nil
	}
	if err := cur.MarkSent(r.cfg.Owner, now); err != nil {
		if errors.Is(err, ErrLeaseLost) || errors.Is(err, ErrIllegalTransition) {
			return true, nil
		}
		return false, fmt.Errorf("outbox: %w", err)
	}
	if r.cfg.DeleteOnSend {
		tx.Delete(Table, cur.Key)
	} else {
		tx.Put(Table, cur.Key, cur)
	}
	err = r.Gate.Cross(BoundaryMark, tx.Commit)
	if errors.Is(err, store.ErrConflict) {
		return true, nil // another relay wrote the row since we read it: it owns it now
	}
	if err != nil {
		return false, fmt.Errorf("outbox: mark sent %s: %w", m.ID, err)
	}
	return false, nil
}

// recordFailure marks m FAILED (or DEAD_LETTER) and releases the messages of
// the batch that were not sent, in one transaction.
func (r *Relay) recordFailure(m Message, cause error, unsent []Message) (dead bool, released int, err error) {
	now := r.Clock.Now()
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	if cur, ok := Get(tx, m.Key); ok {
		jitter := 0.0
		if r.cfg.Jitter > 0 {
			jitter = r.Rand.Float64()
		}
		retryAt := now.Add(r.cfg.Backoff(cur.Attempts+1, jitter))
		if err := cur.MarkFailed(r.cfg.Owner, now, cause.Error(), retryAt, r.cfg.MaxAttempts); err == nil {
			tx.Put(Table, cur.Key, cur)
			dead = cur.Status == DeadLetter
		}
	}
	for _, u := range unsent {
		if cur, ok := Get(tx, u.Key); ok && cur.Release(r.cfg.Owner) == nil {
			tx.Put(Table, cur.Key, cur)
			released++
		}
	}
	err = r.Gate.Cross(BoundaryMark, tx.Commit)
	if errors.Is(err, store.ErrConflict) {
		return false, 0, nil // another relay wrote these rows meanwhile: they are its now
	}
	if err != nil {
		return false, 0, fmt.Errorf("outbox: mark failed %s: %w", m.ID, err)
	}
	return dead, released, nil
}

// Filter selects dead letters to replay; empty fields match everything.
type Filter struct {
	AggregateID string
	EventType   string
}

func (f Filter) matches(m Message) bool {
	return (f.AggregateID == "" || f.AggregateID == m.Event.AggregateID) &&
		(f.EventType == "" || f.EventType == m.Event.Type)
}

// ReplayDeadLetters puts the dead letters that match f back to PENDING with
// their attempts reset, once an operator fixed the cause. It returns how
// many it replayed.
func (r *Relay) ReplayDeadLetters(f Filter) (int, error) {
	now := r.Clock.Now()
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	n := 0
	tx.ScanIndex(Table, IndexUnsent, func(_ string, v any) bool {
		m := v.(Message)
		if m.Status == DeadLetter && f.matches(m) && m.Replay(now) == nil {
			tx.Put(Table, m.Key, m)
			n++
		}
		return true
	})
	if n == 0 {
		return 0, nil
	}
	if err := r.Gate.Cross(BoundaryReplay, tx.Commit); err != nil {
		return 0, fmt.Errorf("outbox: replay: %w", err)
	}
	return n, nil
}
