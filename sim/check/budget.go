package check

import (
	"math"
	"time"

	"outboxlab/variant"
)

// Faults is what a run's planned faults ask of the declared policies: the
// budgets of the run are derived from them and the policies (Transient,
// OutageBudget, Allowed), and they say which
// policy findings the run puts to the test (PolicyFindings).
type Faults struct {
	// Outages are the lengths of the broker's outages.
	Outages []time.Duration
	// Timeouts counts the publishes that time out (stored or dropped).
	Timeouts int
	// Rejected says the broker refuses a message until its cause is
	// fixed: only a dead letter ends its retries.
	Rejected bool
	// Billing are the faults planned for messages on their way to
	// billing, one entry per message.
	Billing []MessageFaults
}

// MessageFaults are the faults planned for one message on its way to
// billing.
type MessageFaults struct {
	AggregateID string
	Sequence    int
	// Corrupted counts the deliveries corrupted in transit, each once (a
	// transient fault).
	Corrupted int
	// Unprocessable says billing can never process it until its cause is
	// fixed (poison, an amount in another currency).
	Unprocessable bool
	// Unknown says it arrives in a contract billing does not know yet (a
	// version or a type).
	Unknown bool
}

// Transient reports whether every fault heals by itself within what the
// policies outlast: no message the broker refuses until fixed, none that
// billing cannot process, none corrupted on every attempt billing's policy
// makes, and the outages together with one full backoff for every publish
// timeout shorter than the relay's retry window, or no longer than the
// ten-minute outage the chapters call transient (TransientOutage),
// whichever is longer: a policy that gives up sooner does not make the
// fault permanent. Under transient faults a dead letter is GAVE_UP.
func (f Faults) Transient(r variant.RelayPolicy, c variant.ConsumerPolicy) bool {
	if f.Rejected {
		return false
	}
	attempts := max(c.MaxAttempts, variant.MinConsumerAttempts)
	for _, m := range f.Billing {
		if m.Unprocessable || m.Unknown || c.MaxAttempts > 0 && m.Corrupted >= attempts {
			return false
		}
	}
	demand := time.Duration(f.Timeouts) * r.BackoffCap
	for _, d := range f.Outages {
		demand += d
	}
	window, ends := r.RetryWindow()
	return demand <= variant.TransientOutage || !ends || demand < window
}

// OutageBudget returns how many publish attempts the broker may refuse
// while it is down, of all messages together, from relays that pause as
// the policy p says: DownBudget of each outage, for each of relays (a
// restarted relay starts its pause anew: count each restart as one more).
// A policy without a positive pause sets no bound (0: no check).
func OutageBudget(p variant.RelayPolicy, f Faults, relays int) int {
	per := 0
	for _, d := range f.Outages {
		n := DownBudget(d, p.Pause)
		if n == math.MaxInt {
			return 0
		}
		per += n
	}
	return per * relays
}

// Allowed returns how many attempts the policy p makes at a message with
// the faults m before it parks it as a dead letter, 0 when it must not
// park it at all: MaxAttempts for one it cannot process, one for a
// contract it does not know when it parks those at once, each corrupted
// delivery one more beside a permanent fault, and no dead letter for one
// whose only fault was transient, unless it was corrupted on every
// attempt the policy makes. A policy that never parks allows any number.
func Allowed(p variant.ConsumerPolicy, m MessageFaults) int {
	attempts := p.MaxAttempts
	if attempts < 1 {
		attempts = math.MaxInt / 2
	}
	allowed := 0
	if m.Unprocessable {
		allowed = attempts
	}
	if m.Unknown {
		if p.UnknownAtOnce {
			allowed = max(allowed, 1)
		} else {
			allowed = attempts
		}
	}
	switch {
	case allowed > 0:
		return allowed + m.Corrupted
	case m.Corrupted >= attempts:
		return attempts // corrupted on every attempt the policy makes
	}
	return 0
}

// PublishBudget returns how many publish attempts of one message the
// policy p allows in a run (see Budget); a policy that never gives up sets
// no bound (0: no check).
func PublishBudget(p variant.RelayPolicy, replays, interruptions int) int {
	if p.MaxAttempts < 1 || p.MaxAttempts > math.MaxInt/(2+replays)-interruptions {
		return 0
	}
	return Budget(p.MaxAttempts, replays, interruptions)
}
