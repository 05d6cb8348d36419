package explore

import (
	"slices"
	"strings"
	"time"

	"outboxlab/broker"
	"outboxlab/orders"
	"outboxlab/scenarios"
	"outboxlab/sim"
)

// widen draws, after everything else (so that a schedule it leaves alone
// stays what it was before it existed), what contradicts easy
// assumptions of a variant's: that the operator cleans up only at the
// ages the default schedule has (see agedCleanups), that amounts are
// small (see largeAmounts), that a failed commit comes alone (see
// burst), and that the broker is up when the first messages go (see
// earlyOutage).
func widen(src Source, s *Schedule) {
	s.Operations = agedCleanups(src, s.Operations)
	if src.Intn("large-amounts", 4) == 0 {
		largeAmounts(src, s.Workload)
	}
	if src.Intn("burst", 4) == 0 {
		s.Faults = append(s.Faults, burst(src, s.Workload))
	}
	if src.Intn("early-outage", 4) == 0 {
		s.Faults = append(s.Faults, earlyOutage(src))
	}
}

// burst draws failures of several commits in a row, a database that
// flaps: 2 to 5 at a commit boundary from its 1st to 4th commit, or, in
// one of two bursts at billing's commit, the commits of one message's
// deliveries (drawn from the workload's events), which billing gets back
// at once and fails again. A consumer that counts failed commits against
// the message gives a healthy one up (GAVE_UP).
func burst(src Source, workload []sim.Command) sim.Fault {
	f := sim.Fault{Kind: sim.FaultCommitFailure,
		Point:      scenarios.CommitBoundaries[src.Intn("burst-at", len(scenarios.CommitBoundaries))],
		Occurrence: 1 + src.Intn("burst-from", 4),
		Burst:      2 + src.Intn("burst-length", 4)}
	events := eventsOf(workload)
	if strings.HasPrefix(f.Point, "consumer.") && len(events) > 0 && src.Intn("burst-message", 2) == 0 {
		f.Occurrence, f.Target = 1, events[src.Intn("burst-target", len(events))]
	}
	return f
}

// eventsOf returns the events the workload's commands produce, in the
// order of the commands.
func eventsOf(workload []sim.Command) []broker.Target {
	kinds := sim.EventKinds(workload)
	seq := map[string]int{}
	var out []broker.Target
	for _, c := range workload {
		t := broker.Target{AggregateID: c.Command.OrderID, Sequence: seq[c.Command.OrderID] + 1}
		if _, ok := kinds[t]; ok {
			seq[t.AggregateID] = t.Sequence
			out = append(out, t)
		}
	}
	return out
}

// earlyOutage draws a broker outage from the start of the run, of 2 s to
// about 2 min (2 s doubled 0 to 6 times): every message the first
// commands make waits through it at once. A relay that forgets its pause
// after a failed send (a cron job) tries each on its own backoff, and two
// messages are enough to send the down broker more requests than a
// relay that pauses (STORM); the outages drawn with the other faults, a
// minute or longer from a few seconds in, are what a relay's pause and
// its messages' backoffs outlast alike.
func earlyOutage(src Source) sim.Fault {
	return sim.Fault{Kind: sim.FaultOutage, For: 2 * time.Second << src.Intn("early-outage", 7)}
}

// agedCleanups are the operator's cleanups at drawn ages: in one
// schedule of two among the work before the fix (the ages of the
// workload's messages), in one of four among the work after it (the ages
// of what the fix's replay sent), else none. There are 1 to 3, at ages
// drawn uniformly in thousandths of the retention period: a cleanup
// that deletes a SENT message in any age window below the retention
// period meets it (a window of an hour is a cleanup in 170 at the
// default retention of 7 days). See among for where they go.
func agedCleanups(src Source, ops []sim.Operation) []sim.Operation {
	fix := slices.IndexFunc(ops, func(o sim.Operation) bool { return o.Kind == sim.OpFix })
	from, to := 0, fix
	switch src.Intn("aged-cleanups", 4) {
	case 0, 1:
	case 2:
		from, to = fix+1, len(ops)
	default:
		return ops
	}
	return among(src, slices.Clone(ops), from, to)
}

// among puts 1 to 3 cleanups at drawn ages among ops[from:to]: before
// its first cleanup that waits a retention period or more, at ages
// below that wait (up to 20 thousandths of the period before its end),
// which then waits as long less, so that it comes when it came before
// (an hour before the period ends, say); with no such cleanup, at the
// end, at ages up to 1.25 periods.
func among(src Source, ops []sim.Operation, from, to int) []sim.Operation {
	at, limit := to, 1250
	for i := from; i < to; i++ {
		if o := ops[i]; o.Kind == sim.OpCleanup && o.Retentions > 0 && o.Thousandths == 0 {
			at, limit = i, 1000*o.Retentions-20
			break
		}
	}
	ages := make([]int, 1+src.Intn("aged-cleanup-count", 3))
	for i := range ages {
		ages[i] = 1 + src.Intn("aged-cleanup-age", limit)
	}
	slices.Sort(ages)
	var aged []sim.Operation
	waited := 0
	for _, age := range ages {
		aged = append(aged, sim.Operation{Kind: sim.OpCleanup, Thousandths: age - waited})
		waited = age
	}
	if at < to {
		left := 1000*ops[at].Retentions - waited
		ops[at].Retentions, ops[at].Thousandths = left/1000, left%1000
	}
	return slices.Insert(ops, at, aged...)
}

// maxDigits is how many digits a large amount has at most: up to 10^12
// minor units (ten thousand million euros, a million million yen),
// beyond 2^24 (what float32 holds to the unit) by far. Float64 holds
// whole minor units exactly up to 2^53 (about 9 * 10^15): amounts that
// large are not what any order of the course is, and a consumer that
// rounds its float64 sums back to minor units is exact below them.
const maxDigits = 12

// largeAmounts replaces every amount of the workload by one log-uniform
// by decade across 1 to 10^maxDigits minor units, in the currency drawn
// for it: a consumer may assume no size.
func largeAmounts(src Source, workload []sim.Command) {
	for i := range workload {
		c := &workload[i].Command
		if c.Kind != orders.Place && c.Kind != orders.Amend {
			continue
		}
		low := int64(1)
		for range src.Intn("amount-digits", maxDigits) {
			low *= 10
		}
		c.Amount.Minor = low + int64(src.Intn("amount-size", int(9*low)))
	}
}
