package report

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"outboxlab/broker"
	"outboxlab/sim"
	"outboxlab/sim/check"
	"outboxlab/variant"
)

// Where returns the index of the event at which violation v went wrong,
// and false when the trace has no event to point at:
//
//   - DUPLICATE: the second effect of the change in billing's ledger, or
//     else its second publish under another id;
//   - PHANTOM, OUT_OF_ORDER, MISMATCH: the effect in billing's ledger;
//   - LOST: the last event that touched the change before it was lost
//     (the early mark of a relay that marks before it sends, the commit of
//     a service that died before it published, billing's delivery of an
//     event it discarded);
//   - STUCK, GAVE_UP: the last event that touched the change's message;
//   - STORM: its last publish;
//   - LATE: its first publish, which came late (or else the last event
//     that touched its message);
//   - UNSAFE: the commit the breach names ("commit 25 by relay-2"), or the
//     ledger row ("ledger 000000000002: o-1 charged ...");
//   - a violation of a whole order (an account that does not add up): the
//     last event that wrote to the order's effects.
func Where(trace []sim.Event, v check.Violation) (int, bool) {
	label := fmt.Sprintf("%s#%d", v.AggregateID, v.Sequence)
	belongs := func(r sim.Row) bool { return r.Label == label }
	if v.Sequence == 0 && v.AggregateID != "" {
		belongs = func(r sim.Row) bool {
			return strings.HasPrefix(r.Label, v.AggregateID+"#") || r.Table == "accounts" && r.Key == v.AggregateID
		}
	}
	rowsOf := func(table string) []int { // events with a row of table for the change, in order
		var out []int
		for i, e := range trace {
			for _, r := range e.Rows {
				if belongs(r) && (table == "" || r.Table == table) {
					out = append(out, i)
					break
				}
			}
		}
		return out
	}
	publishes := func() []int {
		var out []int
		for i, e := range trace {
			for _, a := range e.Broker {
				if a.Kind == broker.Published && fmt.Sprintf("%s#%d", a.Event.AggregateID, a.Event.Sequence) == label {
					out = append(out, i)
					break
				}
			}
		}
		return out
	}
	switch v.Outcome {
	case variant.Duplicate:
		if i, ok := nth(rowsOf("ledger"), 1); ok && len(rowsOf("ledger")) > 1 {
			return i, true
		}
		return nth(publishes(), 1)
	case variant.Phantom, variant.OutOfOrder, variant.Mismatch:
		if i, ok := nth(rowsOf("ledger"), 0); ok {
			return i, true
		}
	case variant.Stuck, variant.GaveUp, variant.Lost:
		if i, ok := nth(rowsOf(""), -1); ok {
			return i, true
		}
	case variant.Storm:
		return nth(publishes(), -1)
	case variant.Late:
		if i, ok := nth(publishes(), 0); ok {
			return i, true
		}
	case variant.Unsafe:
		if i, ok := unsafeAt(trace, v.Detail.EN); ok {
			return i, true
		}
	}
	return nth(rowsOf(""), -1)
}

// nth returns the n-th of events (the last for n < 0 or past the end),
// false for none.
func nth(events []int, n int) (int, bool) {
	switch {
	case len(events) == 0:
		return 0, false
	case n < 0 || n >= len(events):
		return events[len(events)-1], true
	}
	return events[n], true
}

// unsafeAt returns the event of the ledger row or the commit a safety
// breach's detail names.
func unsafeAt(trace []sim.Event, detail string) (int, bool) {
	if m := ledgerRef.FindStringSubmatch(detail); m != nil {
		for i, e := range trace {
			for _, r := range e.Rows {
				if r.DB == "billing" && r.Table == "ledger" && r.Key == m[1] {
					return i, true
				}
			}
		}
	}
	if m := commitRef.FindStringSubmatch(detail); m != nil {
		seq, _ := strconv.ParseUint(m[1], 10, 64)
		for i, e := range trace {
			for _, r := range e.Rows {
				if r.DB == "orders" && r.Commit == seq {
					return i, true
				}
			}
		}
	}
	return 0, false
}

// commitRef and ledgerRef find the commit or ledger row a safety breach
// names.
var (
	commitRef = regexp.MustCompile(`commit (\d+)`)
	ledgerRef = regexp.MustCompile(`^ledger (\S+):`)
)
