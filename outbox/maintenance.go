package outbox

import (
	"fmt"
	"sort"
	"time"

	"outboxlab/effect"
)

// BoundaryCleanup is the commit of a retention cleanup.
var BoundaryCleanup = effect.Boundary{Process: "relay", Effect: "cleanup", Kind: effect.Commit}

// Cleanup deletes the SENT messages whose SentAt is older than the retention
// window, and nothing else: PENDING, IN_FLIGHT, FAILED and DEAD_LETTER
// messages are the evidence and the replay source until they are sent
// (chapter 001: retention must not destroy the proof; chapter 003: seven days give
// a replay window). It returns how many it deleted.
func (r *Relay) Cleanup() (int, error) {
	cutoff := r.Clock.Now().Add(-r.cfg.Retention)
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	n := 0
	tx.Scan(Table, func(key string, v any) bool {
		if m := v.(Message); m.Status == Sent && m.SentAt.Before(cutoff) {
			tx.Delete(Table, key)
			n++
		}
		return true
	})
	if n == 0 {
		return 0, nil
	}
	if err := r.Gate.Cross(BoundaryCleanup, tx.Commit); err != nil {
		return 0, fmt.Errorf("outbox: cleanup: %w", err)
	}
	return n, nil
}

// Metrics is what an operator watches (chapter 000 checklist item 9, chapter 001,
// chapter 003 takeaway 6).
type Metrics struct {
	// ByStatus counts the messages in each status.
	ByStatus map[Status]int
	// OldestUnsentAge is the age of the oldest message not yet SENT: the
	// most useful single figure for a relay's health.
	OldestUnsentAge time.Duration
	// OldestClaimableAge is the age of the oldest message a relay could
	// claim right now; it leaves out messages waiting out their backoff, so
	// a growing value means the relay is not keeping up (or not running).
	OldestClaimableAge time.Duration
	// Blocked lists the aggregates whose oldest unsent message cannot be
	// sent now, with how many messages wait behind it.
	Blocked []BlockedAggregate
	// Attempts counts unsent messages by their number of failed attempts.
	Attempts []AttemptCount
}

// BlockedAggregate is an aggregate held back by its oldest unsent message.
type BlockedAggregate struct {
	AggregateID string
	// Head is the message that blocks: FAILED waiting, IN_FLIGHT under a
	// lease, or a DEAD_LETTER.
	Head Message
	// Waiting is how many later messages of the aggregate wait behind it.
	Waiting int
}

// AttemptCount is one bucket of the attempts distribution.
type AttemptCount struct {
	Attempts, Messages int
}

// Metrics computes the metrics at the relay's current time. Its cost grows
// with the unsent messages, not with the SENT ones.
func (r *Relay) Metrics() Metrics {
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	var unsent []Message
	tx.ScanIndex(Table, IndexUnsent, func(_ string, v any) bool {
		unsent = append(unsent, v.(Message))
		return true
	})
	return Measure(unsent, r.DB.Len(Table)-len(unsent), r.Clock.Now())
}

// Measure computes the metrics of an outbox at now from its unsent
// messages, oldest first, and the number of SENT ones: what Relay.Metrics
// reports, for an outbox as a commit log shows it at any time (labrun's
// metrics view of a run).
func Measure(unsent []Message, sent int, now time.Time) Metrics {
	m := Metrics{ByStatus: map[Status]int{}}
	attempts := map[int]int{}
	var blocked []BlockedAggregate
	blockedAt := map[string]int{} // aggregate -> index in blocked
	headSeen := map[string]bool{}
	for _, msg := range unsent {
		m.ByStatus[msg.Status]++
		attempts[msg.Attempts]++
		age := now.Sub(msg.CreatedAt)
		m.OldestUnsentAge = max(m.OldestUnsentAge, age)
		agg := msg.Event.AggregateID
		if i, ok := blockedAt[agg]; ok {
			blocked[i].Waiting++
			continue
		}
		if headSeen[agg] {
			continue
		}
		headSeen[agg] = true
		if at, ok := msg.ClaimableAt(); ok && !now.Before(at) {
			m.OldestClaimableAge = max(m.OldestClaimableAge, age)
			continue
		}
		blockedAt[agg] = len(blocked)
		blocked = append(blocked, BlockedAggregate{AggregateID: agg, Head: msg})
	}
	if sent > 0 {
		m.ByStatus[Sent] = sent
	}
	m.Blocked = blocked
	for a, n := range attempts {
		m.Attempts = append(m.Attempts, AttemptCount{Attempts: a, Messages: n})
	}
	sort.Slice(m.Attempts, func(i, j int) bool { return m.Attempts[i].Attempts < m.Attempts[j].Attempts })
	return m
}
