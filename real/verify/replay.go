package verify

import (
	"fmt"
	"slices"
	"time"
)

// A round's timing is its processes' own: on a loaded machine a relay
// that claimed a row may not run again until its lease ran out, as if
// the harness had stopped it, and what failed then need not fail on a
// calm machine. The harness can replay that part of the timing: it finds
// a produce request that carried a row its sender had claimed, arriving
// after that claim's lease ran out with no fault of the harness on the
// sender in between, and the failing round's replay stages it as what it
// was, a stall of that sender at that request (--fault stall@N). Any
// other timing the replay cannot stage: it may need several tries
// (labrun-real verify --repeat N).

// Late is a produce request that came after its sender's lease on a row
// it carried had run out, with no fault of the harness on the sender.
type Late struct {
	Produce *Produce
	EventID string
	// Claimed and Until are the claim's time and the end of its lease.
	Claimed, Until time.Duration
}

// Fault is the fault that stages the same lateness in a replay: the
// sender stopped past its lease as that request arrives.
func (l Late) Fault() Fault { return Fault{Kind: Stall, At: l.Produce.N} }

func (l Late) String() string {
	return fmt.Sprintf("produce #%d of %s carried %s %.3fs after its claim's lease ran out (claimed at %.3fs, until %.3fs), with no fault of the harness on it: the machine did not run it for that long; the replay stages that as a stall (--fault %s)",
		l.Produce.N, l.Produce.From(), l.EventID, (l.Produce.Arrived - l.Until).Seconds(), l.Claimed.Seconds(), l.Until.Seconds(), l.Fault())
}

// lateProduce returns the first produce request that came after its
// sender's lease on a row it carried ran out (see Late), if any.
func lateProduce(e Evidence) (Late, bool) {
	for _, p := range e.Produces {
		if p.Sender == nil {
			continue
		}
		for _, r := range p.Records {
			c, ok := lastClaim(e.History, r.EventID, p.Sender, p.Arrived)
			if !ok || c.NewUntil == 0 || p.Arrived <= c.NewUntil+leaseSlack || faultedBetween(e.Interruptions, p.Sender, c.At, p.Arrived) {
				continue
			}
			return Late{Produce: p, EventID: r.EventID, Claimed: c.At, Until: c.NewUntil}, true
		}
	}
	return Late{}, false
}

// lastClaim returns the last change that made the row IN_FLIGHT by p
// before at.
func lastClaim(history []StatusChange, eventID string, p *Proc, at time.Duration) (StatusChange, bool) {
	for j := len(history) - 1; j >= 0; j-- {
		h := history[j]
		if h.EventID == eventID && h.New == "IN_FLIGHT" && h.Writer == p && h.At < at {
			return h, true
		}
	}
	return StatusChange{}, false
}

// faultedBetween reports whether the harness did something to p between
// from and to (a stop overlapping them, a kill, a cut, a timeout).
func faultedBetween(ints []Interruption, p *Proc, from, to time.Duration) bool {
	return slices.ContainsFunc(ints, func(i Interruption) bool { return i.Proc == p && i.To >= from && i.From <= to })
}
