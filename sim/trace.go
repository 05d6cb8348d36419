package sim

import (
	"fmt"
	"strings"
	"time"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/inbox"
	"outboxlab/outbox"
	"outboxlab/store"
)

// EventKind says what a trace event is.
type EventKind string

// The kinds of trace events.
const (
	// EventCommand is a workload command handed to the service.
	EventCommand EventKind = "command"
	// EventEffect is a crossing of an effect boundary.
	EventEffect EventKind = "effect"
	// EventCrash is a crash of a process.
	EventCrash EventKind = "crash"
	// EventRestart is a restart of a process.
	EventRestart EventKind = "restart"
	// EventStall is a process freezing (it resumes later where it stood).
	EventStall EventKind = "stall"
	// EventPhase marks the start of a phase (run, quiesce, replay).
	EventPhase EventKind = "phase"
	// EventError is an error a process reported without crashing.
	EventError EventKind = "error"
)

// Event is one entry of a run's trace: something that happened. It is
// plain data: labrun renders it as text, JSON or a diagram.
type Event struct {
	// At is the virtual time since Epoch.
	At      time.Duration
	Process string
	Kind    EventKind
	// Action is the boundary ("relay.send"), the command ("place o-1 10.00
	// EUR"), the crash point ("relay.after-send") or the phase name.
	Action string
	// Result is "ok", "error: ...", or for a crash "crash".
	Result string
	// Messages are the ids of the messages the event touched.
	Messages []string
	// Changes are the durable state changes the event made, one line each:
	// rows committed and what the broker did.
	Changes []string
}

// String renders the event as one line (changes indented below it).
func (s Event) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %-9s %-7s %s", FormatTime(s.At), s.Process, s.Kind, s.Action)
	if s.Result != "" && s.Result != "ok" {
		fmt.Fprintf(&b, " => %s", s.Result)
	}
	for _, c := range s.Changes {
		fmt.Fprintf(&b, "\n%23s %s", "", c)
	}
	return b.String()
}

// FormatTime renders a virtual time as hh:mm:ss.mmm.
func FormatTime(d time.Duration) string {
	ms := d.Milliseconds()
	clock := fmt.Sprintf("%02d:%02d:%02d.%03d", ms/3600000%24, ms/60000%60, ms/1000%60, ms%1000)
	if days := ms / (24 * 3600000); days > 0 {
		return fmt.Sprintf("day %d %s", days, clock)
	}
	return clock
}

// FromNow says when something due after d happens, in words a reader
// takes in: "now", "in 2m30s", "in 3 days", "in 100 years".
func FromNow(d time.Duration) string {
	const day, year = 24 * time.Hour, 365 * 24 * time.Hour
	switch {
	case d <= 0:
		return "now"
	case d >= year:
		return fmt.Sprintf("in %d years", d/year)
	case d >= day:
		return fmt.Sprintf("in %d days", d/day)
	}
	return "in " + d.Round(time.Millisecond).String()
}

// mark remembers how far the durable systems' logs were before an event, so
// that the event's changes can be described afterwards.
type mark struct {
	orderSeq, billingSeq uint64
	brokerLen            int
}

func (w *world) mark() mark {
	return mark{w.orderDB.LastSeq(), w.billingDB.LastSeq(), len(w.broker.History())}
}

// changesSince describes every broker action and commit since m, broker
// first: within one step a delivery comes before the commit it causes.
func (w *world) changesSince(m mark) (changes, ids []string) {
	for _, a := range w.broker.History()[m.brokerLen:] {
		changes = append(changes, describeAction(a))
		ids = appendID(ids, a.MessageID)
	}
	for _, db := range []struct {
		db    *store.DB
		since uint64
	}{{w.orderDB, m.orderSeq}, {w.billingDB, m.billingSeq}} {
		for _, c := range db.db.Log(db.since) {
			for _, ch := range c.Changes {
				if line, id := describeChange(ch); line != "" {
					changes = append(changes, line)
					ids = appendID(ids, id)
				}
			}
		}
	}
	return changes, ids
}

func appendID(ids []string, id string) []string {
	if id == "" {
		return ids
	}
	for _, have := range ids {
		if have == id {
			return ids
		}
	}
	return append(ids, id)
}

func event(r domain.Record) string { return fmt.Sprintf("%s %s#%d", r.Type, r.AggregateID, r.Sequence) }

// describeChange renders one committed row; bookkeeping rows return "".
func describeChange(ch store.Change) (line, id string) {
	if ch.Deleted {
		return fmt.Sprintf("%s: delete %s", ch.Table, ch.Key), ""
	}
	switch v := ch.Value.(type) {
	case domain.Order:
		return fmt.Sprintf("orders: %s v%d %s %s", v.ID, v.Version, v.Status, v.Total), ""
	case outbox.Message:
		s := fmt.Sprintf("outbox: %s %s %s", v.ID, event(v.Event), v.Status)
		switch v.Status {
		case outbox.InFlight:
			s += " lease " + v.LeaseOwner
		case outbox.Failed:
			s += fmt.Sprintf(" attempts=%d retry at %s", v.Attempts, FormatTime(v.NextAttemptAt.Sub(Epoch)))
		case outbox.DeadLetter:
			s += fmt.Sprintf(" attempts=%d", v.Attempts)
		}
		return s, v.ID
	case billing.Entry:
		return fmt.Sprintf("ledger: %s %s#%d %s (%s)", v.Kind, v.OrderID, v.Sequence, v.Amount, v.MessageID), v.MessageID
	case inbox.Processed:
		return fmt.Sprintf("inbox: %s", v.MessageID), v.MessageID
	case inbox.Parked:
		return fmt.Sprintf("%s: %s %s (%s)", ch.Table, v.Envelope.ID, event(v.Envelope.Event), v.Reason), v.Envelope.ID
	default:
		return "", "" // counters and accounts: bookkeeping
	}
}

func describeAction(a broker.Action) string {
	s := fmt.Sprintf("broker: %s %s %s", a.Kind, a.MessageID, event(a.Event))
	if a.Subscriber != "" {
		s += " to " + a.Subscriber
	}
	if a.Detail != "" {
		s += " (" + a.Detail + ")"
	}
	return s
}
