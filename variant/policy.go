package variant

import (
	"errors"
	"fmt"
	"math"
	"time"

	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/outbox"
)

// RelayPolicy is what a relay declares about how it retries, pauses and
// keeps messages. The budgets of a run (STORM, GAVE_UP, LATE, and how long
// a SENT message must be kept) are derived from it, so that a relay with
// another legitimate policy is judged by its own numbers; the lab bounds
// every policy (see the limits below and PolicyFindings).
//
// The shape is the chapters': an exponential backoff per message and a
// pause of the relay as a whole, each with a cap. A policy is judged both
// ways: a message tried again sooner than Backoff(n) is STORM, and one
// whose retry time the relay wrote later than the whole exponential (the
// jitter only shortens it) or that it claimed under a longer Lease is
// LATE. A relay whose backoff has another shape declares the exponential
// around it: its shortest waits above Backoff, its longest below the cap,
// with Jitter wide enough for both.
type RelayPolicy struct {
	// MaxAttempts is how many failed sends make a message a dead letter;
	// 0 means it never gives a message up.
	MaxAttempts int
	// BackoffBase and BackoffCap: after its n-th failed send a message
	// waits min(BackoffCap, BackoffBase·2^n) before it is tried again,
	// shortened by up to Jitter of that.
	BackoffBase, BackoffCap time.Duration
	Jitter                  float64
	// PauseBase and PauseCap: after n failed sends in a row the relay as
	// a whole sends nothing for min(PauseCap, PauseBase·2^(n-1)).
	PauseBase, PauseCap time.Duration
	// Retention is how long a SENT message is kept (for audit and replay)
	// before the retention cleanup may delete it.
	Retention time.Duration
	// Lease is how long a relay's claim keeps other relays off a message:
	// a relay that dies holding claims leaves them waiting that long. A
	// claim written longer is LATE; with 0, one written longer than the
	// lab accepts (MaxLease) is.
	Lease time.Duration
}

// ConsumerPolicy is what a consumer declares about how often it tries a
// message before it puts it aside as a dead letter.
type ConsumerPolicy struct {
	// MaxAttempts is how many failed attempts park a message it cannot
	// process as a dead letter; 0 means it never parks one.
	MaxAttempts int
	// UnknownAtOnce says a message of a contract it does not know (an
	// unknown version or type) is parked at its first delivery, not
	// retried: no retry can read it.
	UnknownAtOnce bool
}

// The lab's bounds on every declared policy, from the chapters. A policy
// outside them is a finding (PolicyFindings) in every run that puts it to the
// test, whatever the run's messages did.
const (
	// TransientOutage is the broker outage the chapters call transient:
	// chapter 001's payment service is unreachable for ten minutes, and
	// the relay hands the message over after it. A policy's retries must
	// outlast it (GAVE_UP otherwise).
	TransientOutage = 10 * time.Minute
	// MaxTriesPerOutage is how often a policy may try one message during
	// a ten-minute outage: more is retry without backoff, which "verstärkt
	// Störungen" (chapter 000; the course's policy tries 9 times). STORM.
	MaxTriesPerOutage = 30
	// MaxDownTries is how many requests a relay's pause may send into a
	// ten-minute outage, all messages together (the course's pause sends
	// 63, check.DownBudget). STORM.
	MaxDownTries = 120
	// MaxPause is the longest pause after failed sends the lab accepts:
	// longer, and the broker's return goes unnoticed for minutes while
	// messages wait (chapter 004: a message takes as long as the polling
	// and the faults make it wait). LATE.
	MaxPause = time.Minute
	// MaxLease is the longest lease the lab accepts: a relay that dies
	// holding claims makes them invisible for a lease, and "ein Crash
	// darf eine Nachricht nicht dauerhaft unsichtbar machen" (chapter 000,
	// section 5); a message that waits longer than the relay's longest
	// pause (MaxPause) while another relay could send it is LATE, and so
	// is one that waits out a longer lease. LATE.
	MaxLease = MaxPause
	// MaxRetryWindow is how long a policy may retry a message before it
	// gives it up as a visible dead letter: "Retry ohne Grenze ist eine
	// Produktionsgefahr" (chapter 000 section 8); an on-call team solves
	// problems within 24 hours (chapter 003). STUCK.
	MaxRetryWindow = 24 * time.Hour
	// MinRetention is the shortest retention the chapters accept: "reichen
	// auch drei Tage" (chapter 003; the course keeps seven). UNSAFE.
	MinRetention = 3 * 24 * time.Hour
	// MinConsumerAttempts is the fewest attempts a consumer may make
	// before it parks a message it cannot process: "Retry ist ein Schutz
	// gegen transiente Fehler" (chapter 000 section 8). GAVE_UP.
	MinConsumerAttempts = 2
)

// Validate names every field of a declared relay policy that no relay can
// have: a negative count or duration, a cap below its base, jitter outside
// [0, 1). (A policy within these that hammers, retries for ever or keeps
// nothing is valid, and a finding: PolicyFindings.)
func (p RelayPolicy) Validate() error {
	var errs []error
	bad := func(field string, value any, want string) {
		errs = append(errs, fmt.Errorf("relay policy: %s = %v, want %s", field, value, want))
	}
	if p.MaxAttempts < 0 {
		bad("MaxAttempts", p.MaxAttempts, ">= 0 (0: never gives a message up)")
	}
	for _, d := range []struct {
		field string
		v     time.Duration
	}{{"BackoffBase", p.BackoffBase}, {"PauseBase", p.PauseBase}, {"Retention", p.Retention}, {"Lease", p.Lease}} {
		if d.v < 0 {
			bad(d.field, d.v, ">= 0")
		}
	}
	if p.BackoffCap < p.BackoffBase {
		bad("BackoffCap", p.BackoffCap, ">= BackoffBase")
	}
	if p.PauseCap < p.PauseBase {
		bad("PauseCap", p.PauseCap, ">= PauseBase")
	}
	if p.Jitter < 0 || p.Jitter >= 1 {
		bad("Jitter", p.Jitter, "in [0, 1)")
	}
	return errors.Join(errs...)
}

// Validate names a declared consumer policy no consumer can have.
func (p ConsumerPolicy) Validate() error {
	if p.MaxAttempts < 0 {
		return fmt.Errorf("consumer policy: MaxAttempts = %d, want >= 0 (0: never parks a message)", p.MaxAttempts)
	}
	return nil
}

// RelayPolicyOf returns the policy of the reference relay configured
// with c.
func RelayPolicyOf(c outbox.Config) RelayPolicy {
	return RelayPolicy{
		MaxAttempts: c.MaxAttempts,
		BackoffBase: c.BackoffBase, BackoffCap: c.BackoffCap, Jitter: c.Jitter,
		PauseBase: c.BackoffBase, PauseCap: c.PauseCap,
		Retention: c.Retention,
		Lease:     c.Lease,
	}
}

// ConsumerPolicyOf returns the policy of the reference consumer
// configured with c.
func ConsumerPolicyOf(c inbox.Config) ConsumerPolicy {
	return ConsumerPolicy{MaxAttempts: c.MaxAttempts, UnknownAtOnce: true}
}

// CourseRelayPolicy is the policy of the chapters' relay
// (outbox.DefaultConfig): the policy a relay that declares none is judged
// by.
func CourseRelayPolicy() RelayPolicy { return RelayPolicyOf(outbox.DefaultConfig("relay")) }

// CourseConsumerPolicy is the policy of the course's consumer
// (inbox.DefaultConfig): the policy a consumer that declares none is
// judged by.
func CourseConsumerPolicy() ConsumerPolicy {
	return ConsumerPolicyOf(inbox.DefaultConfig("billing", "billing"))
}

// exponential returns min(limit, base·2^n), base for n <= 0, and limit
// when the product overflows.
func exponential(base, limit time.Duration, n int) time.Duration {
	d := limit
	if n < 0 {
		n = 0
	}
	if n < 62 {
		if exp := base << n; exp > 0 && exp < d && exp>>n == base {
			d = exp
		}
	}
	return d
}

// Backoff returns the shortest wait of a message after its n-th failed
// send: min(BackoffCap, BackoffBase·2^n), shortened by all the jitter may
// take.
func (p RelayPolicy) Backoff(n int) time.Duration {
	d := p.LongestBackoff(n)
	return d - time.Duration(p.Jitter*float64(d))
}

// LongestBackoff returns the longest wait of a message after its n-th
// failed send: min(BackoffCap, BackoffBase·2^n), before the jitter
// shortens it. A retry written later than this is LATE.
func (p RelayPolicy) LongestBackoff(n int) time.Duration {
	return exponential(p.BackoffBase, p.BackoffCap, n)
}

// Pause returns how long the relay pauses after n failed sends in a row:
// min(PauseCap, PauseBase·2^(n-1)), 0 for n < 1.
func (p RelayPolicy) Pause(n int) time.Duration {
	if n < 1 {
		return 0
	}
	return exponential(p.PauseBase, p.PauseCap, n-1)
}

// RetryWindow returns the shortest time from a message's first failed
// send to its last before it is a dead letter (the MaxAttempts-1
// backoffs), and false when the policy never gives a message up, or only
// after more than MaxRetryWindow.
func (p RelayPolicy) RetryWindow() (time.Duration, bool) {
	if p.MaxAttempts < 1 {
		return 0, false
	}
	var sum time.Duration
	for a := 1; a < p.MaxAttempts; a++ {
		sum += p.Backoff(a)
		if sum > MaxRetryWindow {
			return sum, false
		}
	}
	return sum, true
}

// TriesWithin returns how often the policy tries one message during an
// outage of d, the first try at its start: as often as its shortest
// backoffs fit, up to MaxAttempts. A backoff that is not positive tries
// without end (math.MaxInt); the count stops at MaxCounted.
func (p RelayPolicy) TriesWithin(d time.Duration) int {
	n, at := 0, time.Duration(0)
	for at < d && (p.MaxAttempts < 1 || n < p.MaxAttempts) && n < MaxCounted {
		n++
		b := p.Backoff(n)
		if b <= 0 {
			return math.MaxInt
		}
		at += b
	}
	return n
}

// MaxCounted bounds the counts of tries: far above any bound they are
// compared with.
const MaxCounted = 1 << 16

// DeadLetter is a message that was given up on, and where.
type DeadLetter struct {
	// Where is the outbox or billing, as a sentence names it.
	Where       lang.Text
	MessageID   string
	AggregateID string
	Sequence    int
	Reason      string
}
