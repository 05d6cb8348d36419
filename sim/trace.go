package sim

import (
	"fmt"
	"strings"
	"time"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/inbox"
	"outboxlab/insurance"
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
	// EventFault is a fault of the broker beginning or ending: an
	// outage. It happens at its planned time, between the events of the
	// processes.
	EventFault EventKind = "fault"
	// EventResume is a stalled process moving again, where it stood.
	EventResume EventKind = "resume"
)

// Event is one entry of a run's trace: something that happened. It is
// plain data: labrun renders it as text, JSON or a diagram.
type Event struct {
	// At is the virtual time since Epoch.
	At      time.Duration
	Process string
	Kind    EventKind
	// Action is the boundary ("relay.send"), the command ("place o-1 10.00
	// EUR"), the crash point ("relay.after-send") or the phase name; ""
	// for a restart.
	Action string
	// Result is "ok", "error: ...", or for a crash "crash".
	Result string
	// Messages are the ids of the messages the event touched.
	Messages []string
	// Changes are the durable state changes the event made, one line each:
	// rows committed and what the broker did.
	Changes []string
	// Rows are the same changes as rows of the durable systems' tables,
	// for pictures of a run that show the tables after each event.
	Rows []Row
	// Broker are the broker's actions among the changes.
	Broker []broker.Action
}

// Row is one row of a durable system as an event left it: a committed row
// of the order or billing database, or a message's line in the broker's
// log (what happened to it so far, per subscriber).
type Row struct {
	// DB is "orders", "billing" or "broker".
	DB    string
	Table string
	Key   string
	// Value is the row rendered in a line; "" when the row was deleted.
	Value   string
	Deleted bool
	// Commit is the database's commit sequence number (0 for the broker).
	Commit uint64
	// Label is the change the row belongs to ("o-1#2": an order at its
	// version, a message or effect of that sequence), or "".
	Label string
}

// String renders the event as one line (changes indented below it).
func (s Event) String() string {
	var b strings.Builder
	line := fmt.Sprintf("%s %-9s %-7s %s", FormatTime(s.At), s.Process, s.Kind, s.Action)
	b.WriteString(strings.TrimRight(line, " ")) // a restart has no action
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
func (w *world) changesSince(m mark) (changes, ids []string, rows []Row, actions []broker.Action) {
	actions = w.broker.History()[m.brokerLen:]
	for _, a := range actions {
		changes = append(changes, describeAction(a))
		ids = appendID(ids, a.MessageID)
		rows = append(rows, w.brokerRow(a))
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
				rows = append(rows, describeRow(db.db.Name(), c.Seq, ch))
			}
		}
	}
	return changes, ids, rows, actions
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
	case domain.Claim:
		return fmt.Sprintf("claims: %s v%d released %s", v.ID, v.Version, v.Amount), ""
	case insurance.Payout:
		return fmt.Sprintf("payouts: %s#%d %s (%s)", v.ClaimID, v.Sequence, v.Amount, v.MessageID), v.MessageID
	case inbox.Processed:
		return fmt.Sprintf("inbox: %s", v.MessageID), v.MessageID
	case inbox.Parked:
		return fmt.Sprintf("%s: %s %s (%s)", ch.Table, v.Envelope.ID, event(v.Envelope.Event), v.Reason), v.Envelope.ID
	default:
		return "", "" // counters and accounts: bookkeeping
	}
}

// describeRow renders one committed row of any table.
func describeRow(db string, seq uint64, ch store.Change) Row {
	row := Row{DB: db, Table: ch.Table, Key: ch.Key, Commit: seq, Deleted: ch.Deleted}
	if ch.Deleted {
		return row
	}
	label := func(order string, seq int) string { return fmt.Sprintf("%s#%d", order, seq) }
	switch v := ch.Value.(type) {
	case domain.Order:
		row.Value = fmt.Sprintf("v%d %s %s", v.Version, v.Status, v.Total)
		row.Label = label(v.ID, v.Version)
	case outbox.Message:
		row.Value = fmt.Sprintf("%s %s %s attempts=%d", v.ID, event(v.Event), v.Status, v.Attempts)
		if v.Status == outbox.InFlight {
			row.Value += fmt.Sprintf(" lease %s until %s", v.LeaseOwner, FormatTime(v.LeaseUntil.Sub(Epoch)))
		}
		if v.Status == outbox.Failed {
			row.Value += " retry at " + FormatTime(v.NextAttemptAt.Sub(Epoch))
		}
		row.Label = label(v.Event.AggregateID, v.Event.Sequence)
	case billing.Entry:
		row.Value = fmt.Sprintf("%s %s#%d %s (%s)", v.Kind, v.OrderID, v.Sequence, v.Amount, v.MessageID)
		row.Label = label(v.OrderID, v.Sequence)
	case domain.Claim:
		row.Value = fmt.Sprintf("v%d released %s", v.Version, v.Amount)
		row.Label = label(v.ID, v.Version)
	case insurance.Payout:
		row.Value = fmt.Sprintf("payout %s#%d %s (%s)", v.ClaimID, v.Sequence, v.Amount, v.MessageID)
		row.Label = label(v.ClaimID, v.Sequence)
	case billing.Account:
		row.Value = "billed " + v.Billed.String()
		if v.Cancelled {
			row.Value += ", cancelled"
		}
	case inbox.Processed:
		row.Value = "processed at " + FormatTime(v.At.Sub(Epoch))
	case inbox.Parked:
		row.Value = fmt.Sprintf("%s %s (%s)", v.Envelope.ID, event(v.Envelope.Event), v.Reason)
		row.Label = label(v.Envelope.Event.AggregateID, v.Envelope.Event.Sequence)
	default:
		row.Value = fmt.Sprint(v)
	}
	return row
}

// brokerRow is a message's line in the broker's log after a: what
// happened to it so far, and to whom, in the order it first happened.
func (w *world) brokerRow(a broker.Action) Row {
	if w.brokerLog == nil {
		w.brokerLog = map[string][]brokerCount{}
	}
	what := string(a.Kind)
	if a.Subscriber != "" {
		what = a.Subscriber + " " + what
	}
	counts := w.brokerLog[a.MessageID]
	i := 0
	for i < len(counts) && counts[i].what != what {
		i++
	}
	if i == len(counts) {
		counts = append(counts, brokerCount{what: what})
	}
	counts[i].n++
	w.brokerLog[a.MessageID] = counts
	parts := make([]string, len(counts))
	for i, c := range counts {
		parts[i] = fmt.Sprintf("%s ×%d", c.what, c.n)
	}
	return Row{DB: "broker", Table: "log", Key: a.MessageID, Value: event(a.Event) + ": " + strings.Join(parts, ", "),
		Label: fmt.Sprintf("%s#%d", a.Event.AggregateID, a.Event.Sequence)}
}

// brokerCount is how often the broker did one thing with a message.
type brokerCount struct {
	what string
	n    int
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

func (w *world) record(s Event) {
	s.At = w.clock.Since()
	// The outages that began or ended before this event, or at its time
	// (a phase comes first).
	w.traceOutages(func(at time.Duration) bool { return at < s.At || at == s.At && s.Kind != EventPhase })
	w.trace = append(w.trace, s)
}

// resumeTrace records that p moves again after a stall.
func (w *world) resumeTrace(p *proc) {
	if p.frozen == "" {
		return
	}
	if w.cfg.Trace {
		w.record(Event{Process: p.name, Kind: EventResume, Action: p.frozen, Changes: []string{"moves on where it stood"}})
	}
	p.frozen = ""
}
