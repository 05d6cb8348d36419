package outbox

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/domain"
)

// Status is where a message stands in its lifecycle.
//
//	PENDING ──claim──> IN_FLIGHT ──ack──> SENT
//	   ^                  │  │
//	   │     release      │  └─error──> FAILED ──claim──> IN_FLIGHT ...
//	   ├──────────────────┘                └─(max attempts)──> DEAD_LETTER
//	   └─────────────────────replay─────────────────────────────────┘
type Status string

// The states of an outbox message.
const (
	// Pending messages wait to be claimed by a relay.
	Pending Status = "PENDING"
	// InFlight messages are claimed by one relay until their lease expires.
	InFlight Status = "IN_FLIGHT"
	// Sent messages were acknowledged by the broker. Terminal.
	Sent Status = "SENT"
	// Failed messages had a failed send and wait for their next attempt.
	Failed Status = "FAILED"
	// DeadLetter messages failed MaxAttempts times. Terminal until an
	// operator replays them.
	DeadLetter Status = "DEAD_LETTER"
)

// Sentinel errors of the lifecycle. Every transition that returns one of
// them leaves the message unchanged.
var (
	// ErrIllegalTransition means the message's state does not allow the
	// transition (claiming a SENT message, marking a DEAD_LETTER one SENT).
	ErrIllegalTransition = errors.New("illegal transition")
	// ErrLeaseLost means the relay's lease on the message expired or was
	// never its own: another relay may be sending it, so this one must not
	// record the outcome (fencing).
	ErrLeaseLost = errors.New("lease lost")
)

// Message is one row of the outbox: the durable intention to publish one
// event, and everything the relay and the operators need to know about it.
type Message struct {
	// Key orders messages by creation; it is the row's primary key.
	Key string
	// ID is the stable message id the consumer deduplicates by (e-5531).
	ID string
	// Event is the contract as it will travel: type, version, aggregate id,
	// sequence and JSON payload.
	Event     domain.Record
	CreatedAt time.Time

	Status Status
	// Attempts counts failed sends since the message was created or replayed.
	Attempts int
	// NextAttemptAt is when a FAILED message may be claimed again.
	NextAttemptAt time.Time
	LastError     string

	// LeaseOwner, ClaimedAt and LeaseUntil are set while the message is
	// IN_FLIGHT.
	LeaseOwner string
	ClaimedAt  time.Time
	LeaseUntil time.Time

	SentAt time.Time
	// Replays counts how often an operator replayed the message.
	Replays int
}

func (m Message) String() string {
	return fmt.Sprintf("%s %s %s#%d %s", m.ID, m.Event.Type, m.Event.AggregateID, m.Event.Sequence, m.Status)
}

// Unsent reports whether the message still has to reach the broker: every
// status but SENT. A dead letter is unsent too: it blocks its aggregate.
func (m Message) Unsent() bool { return m.Status != Sent }

// ClaimableAt returns the earliest time a relay may claim the message, and
// false if no relay ever may (SENT, DEAD_LETTER).
func (m Message) ClaimableAt() (time.Time, bool) {
	switch m.Status {
	case Pending:
		return m.CreatedAt, true
	case Failed:
		return m.NextAttemptAt, true
	case InFlight:
		return m.LeaseUntil, true // an expired lease may be taken over
	default:
		return time.Time{}, false
	}
}

// Claim takes the message for owner until leaseUntil. Allowed from PENDING,
// from FAILED once its next attempt is due, and from IN_FLIGHT once the other
// holder's lease has expired (the holder crashed or stalled).
func (m *Message) Claim(owner string, now, leaseUntil time.Time) error {
	at, ok := m.ClaimableAt()
	if !ok || now.Before(at) {
		return fmt.Errorf("claim %s: %w: %s", m.String(), ErrIllegalTransition, m.why(now))
	}
	m.Status, m.LeaseOwner, m.ClaimedAt, m.LeaseUntil = InFlight, owner, now, leaseUntil
	return nil
}

func (m Message) why(now time.Time) string {
	switch m.Status {
	case Failed:
		return "next attempt at " + m.NextAttemptAt.Format(time.RFC3339)
	case InFlight:
		return "leased by " + m.LeaseOwner + " until " + m.LeaseUntil.Format(time.RFC3339)
	default:
		return "status " + string(m.Status)
	}
}

// checkLease is the fence: only the relay holding a live lease may record
// what happened to the message.
func (m Message) checkLease(owner string, now time.Time) error {
	if m.Status != InFlight {
		return fmt.Errorf("%s: %w: status %s", m.String(), ErrIllegalTransition, m.Status)
	}
	if m.LeaseOwner != owner || !now.Before(m.LeaseUntil) {
		return fmt.Errorf("%s: %w: %s holds it until %s, %s asked at %s", m.String(), ErrLeaseLost,
			m.LeaseOwner, m.LeaseUntil.Format(time.RFC3339), owner, now.Format(time.RFC3339))
	}
	return nil
}

// MarkSent records the broker's acknowledgement. Only the lease holder may
// do it, and only while the lease lasts.
func (m *Message) MarkSent(owner string, now time.Time) error {
	if err := m.checkLease(owner, now); err != nil {
		return fmt.Errorf("mark sent: %w", err)
	}
	m.Status, m.SentAt, m.LastError = Sent, now, ""
	m.LeaseOwner, m.ClaimedAt, m.LeaseUntil = "", time.Time{}, time.Time{}
	return nil
}

// MarkFailed records a failed send: one more attempt, the error, and either
// a next attempt at retryAt (FAILED) or, at maxAttempts, DEAD_LETTER.
func (m *Message) MarkFailed(owner string, now time.Time, cause string, retryAt time.Time, maxAttempts int) error {
	if err := m.checkLease(owner, now); err != nil {
		return fmt.Errorf("mark failed: %w", err)
	}
	m.Attempts++
	m.LastError = cause
	m.LeaseOwner, m.ClaimedAt, m.LeaseUntil = "", time.Time{}, time.Time{}
	if m.Attempts >= maxAttempts {
		m.Status, m.NextAttemptAt = DeadLetter, time.Time{}
		return nil
	}
	m.Status, m.NextAttemptAt = Failed, retryAt
	return nil
}

// Release gives a claim back without counting an attempt: the relay did not
// send the message (it stopped its batch, or recovers after a crash).
func (m *Message) Release(owner string) error {
	if m.Status != InFlight || m.LeaseOwner != owner {
		return fmt.Errorf("release %s: %w: not in flight for %s", m.String(), ErrIllegalTransition, owner)
	}
	m.Status, m.LeaseOwner, m.ClaimedAt, m.LeaseUntil = Pending, "", time.Time{}, time.Time{}
	return nil
}

// Replay puts a dead letter back to PENDING with its attempts reset, after an
// operator fixed the cause. It is the only way out of DEAD_LETTER.
func (m *Message) Replay(now time.Time) error {
	if m.Status != DeadLetter {
		return fmt.Errorf("replay %s: %w: only dead letters are replayed", m.String(), ErrIllegalTransition)
	}
	m.Status, m.Attempts, m.NextAttemptAt, m.Replays = Pending, 0, now, m.Replays+1
	return nil
}
