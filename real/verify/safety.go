package verify

import (
	"fmt"
	"time"

	"outboxlab/outbox"
	"outboxlab/sim/check"
)

// twoLiveSenders finds rows the broker stored from two relay processes
// that both held them. Any claim on a row is made after the row's commit,
// so a lease on it runs out no earlier than a lease's length after the
// commit: a second copy from another process before then, with neither
// process killed, cut off from the database, nor seeing a produce fail
// since the commit (any of which may end a claim), means two live
// instances held the row at once. It is UNSAFE. Later copies are not
// judged here: a relay may be slower than its lease (a stop, a long
// wait for an answer), and another instance may then take the row over.
func twoLiveSenders(log []*Stored, byID map[string]Committed, ints []Interruption, produces []*Produce, lease time.Duration) []string {
	copies := map[string][]*Stored{}
	reported := map[string]bool{}
	var out []string
	for _, s := range log {
		id := s.Record.EventID
		c, ok := byID[id]
		if !ok || s.Produce.Sender == nil || reported[id] {
			continue
		}
		for _, f := range copies[id] {
			a, b := f.Produce.Sender, s.Produce.Sender
			if a == b || s.At >= c.At+lease-leaseMargin || excused(a, b, c.At-leaseMargin, s.At, ints, produces) {
				continue
			}
			out = append(out, fmt.Sprintf("%s (%s#%d), committed at %.3fs, was stored from %s (pid %d) at %.3fs and from %s (pid %d) at %.3fs, "+
				"within a lease (%s) of its commit; neither was killed, cut off from the database, nor had a produce fail: two live instances held one row",
				id, c.Record.AggregateID, c.Record.Sequence, c.At.Seconds(), a.Label(), a.OwnPID(), f.At.Seconds(), b.Label(), b.OwnPID(), s.At.Seconds(), lease))
			reported[id] = true
			break
		}
		copies[id] = append(copies[id], s)
	}
	return out
}

// leaseMargin allows for the time between a row's commit and the moment
// the harness's service saw it committed: a relay may claim, send and be
// killed in between (seen at load 8-14: the kill recorded just before
// the service's commit time, and the reference's resend judged UNSAFE).
const leaseMargin = 100 * time.Millisecond

// excused reports whether a or b was killed, cut off or saw a produce
// fail between from and to.
func excused(a, b *Proc, from, to time.Duration, ints []Interruption, produces []*Produce) bool {
	for _, i := range ints {
		if (i.Proc == a || i.Proc == b) && i.From == i.To && i.From >= from && i.From <= to {
			return true
		}
	}
	for _, p := range produces {
		if (p.Sender == a || p.Sender == b) && p.Arrived >= from && p.Arrived <= to && failed(p) {
			return true
		}
	}
	return false
}

// failed reports whether a produce's sender saw it fail: withheld, or
// refused for a partition.
func failed(p *Produce) bool {
	if p.Withheld {
		return true
	}
	for _, r := range p.Results {
		if r.Code != 0 {
			return true
		}
	}
	return false
}

// historyBreaches finds writes to a row after it was final: a SENT row
// written again (a relay that recorded an outcome for a row it no longer
// held: no fence), a DEAD_LETTER written by anyone (only an operator may
// replay it, and none does here). A delete of either is retention's
// business and fine.
func historyBreaches(history []StatusChange) []string {
	var out []string
	for _, h := range history {
		if h.New == "" {
			continue
		}
		switch outbox.Status(h.Old) {
		case outbox.Sent:
			out = append(out, fmt.Sprintf("%s was written after it was SENT (%s → %s) by %s at %.3fs: a relay recorded an outcome for a row it no longer held (no fence)", h.EventID, h.Old, h.New, writerName(h.Writer), h.At.Seconds()))
		case outbox.DeadLetter:
			out = append(out, fmt.Sprintf("%s was written after it was a DEAD_LETTER (%s → %s) by %s at %.3fs: only an operator's replay may", h.EventID, h.Old, h.New, writerName(h.Writer), h.At.Seconds()))
		}
	}
	return out
}

// attempts counts, for each committed event, the produce requests that
// carried it and were not refused by an outage (those count together, in
// the second result), with the row's budget (PublishBudget, by how long
// after its commit its last request came): a storm is more of either than
// the contract allows.
func attempts(produces []*Produce, byID map[string]Committed, interruptions int, lease time.Duration) ([]check.Attempts, int) {
	n, last := map[string]int{}, map[string]time.Duration{}
	var order []string
	refused := 0
	for _, p := range produces {
		down := false
		for _, r := range p.Results {
			down = down || r.Code != 0
		}
		if down {
			refused++
			continue
		}
		for _, r := range p.Records {
			if _, ok := byID[r.EventID]; !ok {
				continue
			}
			if n[r.EventID] == 0 {
				order = append(order, r.EventID)
			}
			n[r.EventID]++
			last[r.EventID] = max(last[r.EventID], p.Arrived)
		}
	}
	var out []check.Attempts
	for _, id := range order {
		c := byID[id]
		out = append(out, check.Attempts{MessageID: id, AggregateID: c.Record.AggregateID, Sequence: c.Record.Sequence, N: n[id],
			Budget: PublishBudget(interruptions, max(0, last[id]-c.At), lease)})
	}
	return out, refused
}

// downBudget is how many refused produce requests the contract allows in
// the outages: per instance, one and then one per RefusalPace.
func downBudget(outages []Window, instances int) int {
	n := 0
	for _, w := range outages {
		n += instances * check.DownBudget(w.To-w.From+RefusalPace, func(int) time.Duration { return RefusalPace })
	}
	return n
}
