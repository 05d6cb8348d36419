package outbox

import (
	"errors"
	"fmt"
	"time"
)

// Config configures a Relay. Start from DefaultConfig and change what you
// need: Validate rejects every value out of its range (a zero duration or
// count among them) instead of guessing; only Jitter and DeleteOnSend mean
// "off" at zero.
type Config struct {
	// Owner names this relay instance in leases, e.g. "relay-1". A relay
	// that restarts under the same name recovers the claims it held.
	Owner string
	// BatchSize is the most messages one Step claims. Chapter 000 warns that
	// batches too large block the database. Default 100.
	BatchSize int
	// Lease is how long a claim lasts. A relay that has not recorded the
	// outcome by then loses the message to another relay (and may no longer
	// mark it). Default 30 s.
	Lease time.Duration
	// MaxAttempts is how many failed sends make a message DEAD_LETTER.
	// Default 10.
	MaxAttempts int
	// BackoffBase and BackoffCap give the delay after the n-th failed
	// attempt: min(BackoffCap, BackoffBase·2^n). Chapter 000 uses 1 s and
	// 300 s: 2 s, 4 s, 8 s, ... 300 s.
	BackoffBase time.Duration
	BackoffCap  time.Duration
	// PauseCap bounds the relay's own pause after failed sends: after n
	// steps in a row that failed to send, Step does nothing for
	// min(PauseCap, BackoffBase·2^(n-1)). Without it, a relay facing a broker
	// outage would fail (and count an attempt against) a fresh message on
	// every poll, and hammer the broker (chapter 000: "Retry läuft ohne Backoff
	// und verstärkt Störungen"). Default 10 s: a broker that is down is
	// asked again at least every 10 s. That is not how soon a message goes
	// once the broker is back: each message also waits out its own backoff
	// (BackoffCap), so after a long outage the last ones leave up to
	// BackoffCap later (labrun scenario claim-4711).
	PauseCap time.Duration
	// Jitter in [0, 1) shortens each delay by a random fraction up to Jitter,
	// so that relays do not retry in lockstep. 0 disables it. Default 0.
	Jitter float64
	// Retention is how long SENT messages are kept for audit and replay
	// before Cleanup deletes them. Default 7 days (chapter 003).
	Retention time.Duration
	// DeleteOnSend deletes a message once the broker acknowledged it,
	// instead of keeping it SENT for the retention window (chapter 004: "kann
	// der Versandprozess den Eintrag auch löschen"). The outbox stays small;
	// the audit trail and the replay window are gone. Default false.
	DeleteOnSend bool
	// BusyPoll is how long Run pauses after a step that did work, and
	// IdlePoll after one that found nothing (chapter 003: 50 ms and 500 ms).
	// The simulator steps the relay itself and ignores both.
	BusyPoll, IdlePoll time.Duration
}

// DefaultConfig returns the configuration the course chapters describe for
// a relay named owner.
func DefaultConfig(owner string) Config {
	return Config{
		Owner:       owner,
		BatchSize:   100,
		Lease:       30 * time.Second,
		MaxAttempts: 10,
		BackoffBase: time.Second,
		BackoffCap:  300 * time.Second,
		PauseCap:    10 * time.Second,
		Retention:   7 * 24 * time.Hour,
		BusyPoll:    50 * time.Millisecond,
		IdlePoll:    500 * time.Millisecond,
	}
}

// ErrConfig is wrapped by every error Validate returns.
var ErrConfig = errors.New("invalid relay config")

// Validate returns an error naming every field that is out of range.
func (c Config) Validate() error {
	var errs []error
	bad := func(field string, value any, want string) {
		errs = append(errs, fmt.Errorf("%w: %s = %v, want %s", ErrConfig, field, value, want))
	}
	if c.Owner == "" {
		bad("Owner", `""`, "a relay instance name")
	}
	if c.BatchSize < 1 {
		bad("BatchSize", c.BatchSize, ">= 1")
	}
	if c.Lease <= 0 {
		bad("Lease", c.Lease, "> 0")
	}
	if c.MaxAttempts < 1 {
		bad("MaxAttempts", c.MaxAttempts, ">= 1")
	}
	if c.BackoffBase <= 0 {
		bad("BackoffBase", c.BackoffBase, "> 0")
	}
	if c.BackoffCap < c.BackoffBase {
		bad("BackoffCap", c.BackoffCap, ">= BackoffBase")
	}
	if c.PauseCap < c.BackoffBase {
		bad("PauseCap", c.PauseCap, ">= BackoffBase")
	}
	if c.Jitter < 0 || c.Jitter >= 1 {
		bad("Jitter", c.Jitter, "in [0, 1)")
	}
	if c.Retention <= 0 {
		bad("Retention", c.Retention, "> 0")
	}
	if c.BusyPoll <= 0 {
		bad("BusyPoll", c.BusyPoll, "> 0")
	}
	if c.IdlePoll < c.BusyPoll {
		bad("IdlePoll", c.IdlePoll, ">= BusyPoll")
	}
	return errors.Join(errs...)
}

// Pause returns how long the relay pauses after n failed steps in a row:
// min(PauseCap, BackoffBase·2^(n-1)).
func (c Config) Pause(n int) time.Duration {
	if n < 1 {
		return 0
	}
	d := c.PauseCap
	if n < 62 {
		if exp := c.BackoffBase << (n - 1); exp > 0 && exp < d {
			d = exp
		}
	}
	return d
}

// RetryWindow returns the shortest time between a message's first attempt
// and its last before it is dead-lettered: the sum of the MaxAttempts-1
// backoffs, each shortened by the most jitter can take. A broker outage
// shorter than this is outlasted; only a longer one dead-letters.
func (c Config) RetryWindow() time.Duration {
	var sum time.Duration
	for a := 1; a < c.MaxAttempts; a++ {
		sum += c.Backoff(a, 1)
	}
	return sum
}

// Backoff returns the delay after the given number of failed attempts:
// min(BackoffCap, BackoffBase·2^attempts), shortened by jitter·delay where
// jitter is a number in [0, Jitter).
func (c Config) Backoff(attempts int, jitter float64) time.Duration {
	d := c.BackoffCap
	if attempts < 62 {
		if exp := c.BackoffBase << attempts; exp > 0 && exp < d {
			d = exp
		}
	}
	return d - time.Duration(jitter*c.Jitter*float64(d))
}
