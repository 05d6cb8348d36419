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
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/sim/check"
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

// Text names the kind in both languages, as a timeline's column shows it.
func (k EventKind) Text() lang.Text {
	if t, ok := eventKindTexts[k]; ok {
		return t
	}
	return lang.Plain(string(k))
}

var eventKindTexts = map[EventKind]lang.Text{
	EventCommand: {EN: "command", DE: "Befehl"},
	EventEffect:  {EN: "effect", DE: "Wirkung"},
	EventCrash:   {EN: "crash", DE: "Absturz"},
	EventRestart: {EN: "restart", DE: "Neustart"},
	EventStall:   {EN: "stall", DE: "Stillstand"},
	EventPhase:   {EN: "phase", DE: "Phase"},
	EventError:   {EN: "error", DE: "Fehler"},
	EventFault:   {EN: "fault", DE: "Störung"},
	EventResume:  {EN: "resume", DE: "Fortsetzung"},
}

// kindWidth is how wide a timeline's column of kinds is in each language.
var kindWidth = func() [2]int {
	var w [2]int
	for _, t := range eventKindTexts {
		w[0] = max(w[0], len([]rune(t.EN)))
		w[1] = max(w[1], len([]rune(t.DE)))
	}
	return w
}()

// Event is one entry of a run's trace: something that happened. It is
// plain data: labrun renders it as text, JSON or a diagram. Its text is
// in both languages, as the findings are: In renders it in one.
type Event struct {
	// At is the virtual time since Epoch.
	At      time.Duration
	Process string
	Kind    EventKind
	// Action is the boundary ("relay.send"), the command ("place o-1 10.00
	// EUR"), the crash point ("relay.after-send") or the phase name; ""
	// for a restart.
	Action string
	// Says is what the event did in words where Action is not an id (a
	// command, a phase), in both languages; zero: Action as it is.
	Says lang.Text
	// Result is how the event ended: "ok", "error: ..." (its German
	// quotes the error as the process said it), a refusal; zero for a
	// crash, a stall and what has no result.
	Result lang.Text
	// Messages are the ids of the messages the event touched.
	Messages []string
	// Changes are the durable state changes the event made, one line each:
	// rows committed and what the broker did.
	Changes []lang.Text
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
	// Value is the row rendered in a line; zero when the row was deleted.
	Value   lang.Text
	Deleted bool
	// Commit is the database's commit sequence number (0 for the broker).
	Commit uint64
	// Label is the change the row belongs to ("o-1#2": an order at its
	// version, a message or effect of that sequence), or "".
	Label string
}

// String renders the event in English (see In).
func (s Event) String() string { return s.In(lang.English) }

// In renders the event as one line in l, its changes indented below it:
// the time, the process, the kind, what it did and how it ended.
func (s Event) In(l lang.Lang) string {
	var b strings.Builder
	line := fmt.Sprintf("%s %-9s %-*s %s", TimeText(s.At).In(l), s.Process, kindWidth[l], s.Kind.Text().In(l), s.What().In(l))
	b.WriteString(strings.TrimRight(line, " ")) // a restart has no action
	for _, c := range s.Changes {
		fmt.Fprintf(&b, "\n%23s %s", "", c.In(l))
	}
	return b.String()
}

// What is the event's line after its kind: what it did and, after "=>",
// how it ended where that is not "ok".
func (s Event) What() lang.Text {
	what := s.Says
	if what.EN == "" {
		what = lang.Plain(s.Action)
	}
	if s.Result.EN != "" && s.Result.EN != "ok" {
		what = lang.Textf(lang.Plain("%s => %s"), what, s.Result)
	}
	return what
}

// FormatTime renders a virtual time as hh:mm:ss.mmm, after "day N" from
// the first day on.
func FormatTime(d time.Duration) string { return TimeText(d).EN }

// TimeText is a virtual time as FormatTime renders it, in both languages:
// "day 7 01:00:05.116", "Tag 7 01:00:05.116" ("Tag 36.500 …").
func TimeText(d time.Duration) lang.Text {
	ms := d.Milliseconds()
	clock := fmt.Sprintf("%02d:%02d:%02d.%03d", ms/3600000%24, ms/60000%60, ms/1000%60, ms%1000)
	if days := ms / (24 * 3600000); days > 0 {
		// German sets a count's thousands off with a point (Tag 36.500: a
		// lease without end); English keeps the plain digits it always
		// printed.
		return lang.Text{EN: fmt.Sprintf("day %d %s", days, clock), DE: fmt.Sprintf("Tag %s %s", lang.Count(days).DE, clock)}
	}
	return lang.Plain(clock)
}

// errorResult is an effect's or a command's error as a result: English
// as the process said it; in German quoted, since the words are the
// process's own.
func errorResult(err error) lang.Text {
	return lang.Text{EN: "error: " + err.Error(), DE: "Fehler: „" + err.Error() + "“"}
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
func (w *world) changesSince(m mark) (changes []lang.Text, ids []string, rows []Row, actions []broker.Action) {
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
				if line, id := w.describeChange(ch); line.EN != "" {
					changes = append(changes, line)
					ids = appendID(ids, id)
				}
				rows = append(rows, w.describeRow(db.db.Name(), c.Seq, ch))
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

// money is an amount as each language writes it.
func money(m domain.Money) lang.Text { return lang.Money(m.Amount(), string(m.Currency)) }

// describeChange renders one committed row, in both languages: tables,
// statuses, ids and kinds are the same in both; bookkeeping rows return
// the zero Text.
func (w *world) describeChange(ch store.Change) (line lang.Text, id string) {
	if ch.Deleted {
		return lang.Textf(lang.Text{EN: "%s: delete %s", DE: "%s: gelöscht %s"}, ch.Table, ch.Key), ""
	}
	switch v := ch.Value.(type) {
	case domain.Order:
		return lang.Textf(lang.Plain("orders: %s v%d %s %s"), v.ID, v.Version, v.Status, money(v.Total)), ""
	case outbox.Message:
		s := lang.Textf(lang.Plain("outbox: %s %s %s"), v.ID, event(v.Event), v.Status)
		switch v.Status {
		case outbox.InFlight:
			s = lang.Textf(lang.Text{EN: "%s lease %s", DE: "%s Lease %s"}, s, v.LeaseOwner)
		case outbox.Failed:
			s = lang.Textf(lang.Text{EN: "%s attempts=%d retry at %s", DE: "%s attempts=%d nächster Versuch um %s"}, s, v.Attempts, TimeText(v.NextAttemptAt.Sub(Epoch)))
		case outbox.DeadLetter:
			s = lang.Textf(lang.Plain("%s attempts=%d"), s, v.Attempts)
		}
		return s, v.ID
	case billing.Entry:
		return lang.Textf(lang.Plain("ledger: %s %s#%d %s (%s)"), v.Kind, v.OrderID, v.Sequence, money(v.Amount), v.MessageID), v.MessageID
	case domain.Claim:
		return lang.Textf(lang.Text{EN: "claims: %s v%d released %s", DE: "claims: %s v%d freigegeben %s"}, v.ID, v.Version, money(v.Amount)), ""
	case insurance.Payout:
		return lang.Textf(lang.Plain("payouts: %s#%d %s (%s)"), v.ClaimID, v.Sequence, money(v.Amount), v.MessageID), v.MessageID
	case inbox.Processed:
		return lang.Textf(lang.Plain("inbox: %s"), v.MessageID), v.MessageID
	case inbox.Parked:
		return lang.Textf(lang.Plain("%s: %s %s (%s)"), ch.Table, v.Envelope.ID, event(v.Envelope.Event), w.heldReason(ch.Table, v)), v.Envelope.ID
	default:
		return lang.Text{}, "" // counters and accounts: bookkeeping
	}
}

// heldReason says why billing holds p, a row of table: one parked behind
// a gap waits for the event after the last its aggregate applied, as
// billing's table of applied sequences says now (the lab's words); any
// other as billing wrote it (see check.HeldReason).
func (w *world) heldReason(table string, p inbox.Parked) lang.Text {
	if table != inbox.TableParked || !w.billingDB.HasTable(inbox.TableApplied) {
		return check.HeldReason(p, 0)
	}
	applied, _ := w.billingDB.Get(inbox.TableApplied, p.Envelope.Event.AggregateID)
	n, _ := applied.(int)
	return check.HeldReason(p, n+1)
}

// describeRow renders one committed row of any table.
func (w *world) describeRow(db string, seq uint64, ch store.Change) Row {
	row := Row{DB: db, Table: ch.Table, Key: ch.Key, Commit: seq, Deleted: ch.Deleted}
	if ch.Deleted {
		return row
	}
	label := func(order string, seq int) string { return fmt.Sprintf("%s#%d", order, seq) }
	switch v := ch.Value.(type) {
	case domain.Order:
		row.Value = lang.Textf(lang.Plain("v%d %s %s"), v.Version, v.Status, money(v.Total))
		row.Label = label(v.ID, v.Version)
	case outbox.Message:
		row.Value = lang.Textf(lang.Plain("%s %s %s attempts=%d"), v.ID, event(v.Event), v.Status, v.Attempts)
		if v.Status == outbox.InFlight {
			row.Value = lang.Textf(lang.Text{EN: "%s lease %s until %s", DE: "%s Lease %s bis %s"}, row.Value, v.LeaseOwner, TimeText(v.LeaseUntil.Sub(Epoch)))
		}
		if v.Status == outbox.Failed {
			row.Value = lang.Textf(lang.Text{EN: "%s retry at %s", DE: "%s nächster Versuch um %s"}, row.Value, TimeText(v.NextAttemptAt.Sub(Epoch)))
		}
		row.Label = label(v.Event.AggregateID, v.Event.Sequence)
	case billing.Entry:
		row.Value = lang.Textf(lang.Plain("%s %s#%d %s (%s)"), v.Kind, v.OrderID, v.Sequence, money(v.Amount), v.MessageID)
		row.Label = label(v.OrderID, v.Sequence)
	case domain.Claim:
		row.Value = lang.Textf(lang.Text{EN: "v%d released %s", DE: "v%d freigegeben %s"}, v.Version, money(v.Amount))
		row.Label = label(v.ID, v.Version)
	case insurance.Payout:
		row.Value = lang.Textf(lang.Text{EN: "payout %s#%d %s (%s)", DE: "Auszahlung %s#%d %s (%s)"}, v.ClaimID, v.Sequence, money(v.Amount), v.MessageID)
		row.Label = label(v.ClaimID, v.Sequence)
	case billing.Account:
		row.Value = lang.Textf(lang.Text{EN: "billed %s", DE: "berechnet %s"}, money(v.Billed))
		if v.Cancelled {
			row.Value = lang.Textf(lang.Text{EN: "%s, cancelled", DE: "%s, storniert"}, row.Value)
		}
	case inbox.Processed:
		// The time the consumer wrote into the row: its clock when it began
		// the transaction (as now() in PostgreSQL), before the commit.
		row.Value = lang.Textf(lang.Text{EN: "processed, its transaction begun at %s", DE: "verarbeitet, Transaktion begonnen um %s"}, TimeText(v.At.Sub(Epoch)))
	case inbox.Parked:
		row.Value = lang.Textf(lang.Plain("%s %s (%s)"), v.Envelope.ID, event(v.Envelope.Event), w.heldReason(ch.Table, v))
		row.Label = label(v.Envelope.Event.AggregateID, v.Envelope.Event.Sequence)
	default:
		row.Value = lang.Plain(fmt.Sprint(v))
	}
	return row
}

// brokerRow is a message's line in the broker's log after a: what
// happened to it so far, and to whom, in the order it first happened.
func (w *world) brokerRow(a broker.Action) Row {
	if w.brokerLog == nil {
		w.brokerLog = map[string][]brokerCount{}
	}
	what := brokerKind(a.Kind)
	if a.Subscriber != "" {
		what = lang.Textf(lang.Plain("%s %s"), a.Subscriber, what)
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
	parts := make([]lang.Text, len(counts))
	for i, c := range counts {
		parts[i] = lang.Textf(lang.Plain("%s ×%d"), c.what, c.n)
	}
	return Row{DB: "broker", Table: "log", Key: a.MessageID, Value: lang.Textf(lang.Plain("%s: %s"), event(a.Event), lang.Join(parts, ", ")),
		Label: fmt.Sprintf("%s#%d", a.Event.AggregateID, a.Event.Sequence)}
}

// brokerCount is how often the broker did one thing with a message.
type brokerCount struct {
	what lang.Text
	n    int
}

// BrokerKindText names what the broker did in both languages.
func BrokerKindText(k broker.ActionKind) lang.Text { return brokerKind(k) }

// BrokerActionText says what the broker did with a message, in both
// languages, as a timeline's line of changes says it.
func BrokerActionText(a broker.Action) lang.Text { return describeAction(a) }

// brokerKind names what the broker did in both languages.
func brokerKind(k broker.ActionKind) lang.Text {
	if t, ok := brokerKinds[k]; ok {
		return t
	}
	return lang.Plain(string(k))
}

var brokerKinds = map[broker.ActionKind]lang.Text{
	broker.Published:       {EN: "published", DE: "veröffentlicht"},
	broker.PublishFailed:   {EN: "publish-failed", DE: "Senden gescheitert"},
	broker.TimedOut:        {EN: "timed-out", DE: "Zeitüberschreitung"},
	broker.Delivered:       {EN: "delivered", DE: "zugestellt"},
	broker.Acked:           {EN: "acked", DE: "bestätigt"},
	broker.Nacked:          {EN: "nacked", DE: "zurückgegeben"},
	broker.Redelivered:     {EN: "redelivered", DE: "erneut zugestellt"},
	broker.Requeued:        {EN: "requeued", DE: "wieder eingereiht"},
	broker.Duplicated:      {EN: "duplicated", DE: "verdoppelt"},
	broker.Held:            {EN: "held", DE: "zurückgehalten"},
	broker.Reordered:       {EN: "reordered", DE: "umgeordnet"},
	broker.PreparedAction:  {EN: "prepared", DE: "vorbereitet"},
	broker.CommittedAction: {EN: "committed", DE: "committet"},
	broker.AbortedAction:   {EN: "aborted", DE: "abgebrochen"},
}

// describeAction renders what the broker did, in both languages: its
// detail in German where the broker says it (an error it gave stays as
// it said it, quoted).
func describeAction(a broker.Action) lang.Text {
	s := lang.Textf(lang.Plain("broker: %s %s %s"), brokerKind(a.Kind), a.MessageID, event(a.Event))
	if a.Subscriber != "" {
		s = lang.Textf(lang.Text{EN: "%s to %s", DE: "%s an %s"}, s, a.Subscriber)
	}
	if a.Detail != "" {
		detail := lang.Text{EN: a.Detail, DE: a.DetailDE}
		if detail.DE == "" {
			detail.DE = "„" + a.Detail + "“"
		}
		s = lang.Textf(lang.Plain("%s (%s)"), s, detail)
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
		w.record(Event{Process: p.name, Kind: EventResume, Action: p.frozen, Changes: []lang.Text{{EN: "moves on where it stood", DE: "macht weiter, wo er stand"}}})
	}
	p.frozen = ""
}

// commandText is a workload command in both languages: as the story file
// writes it in English ("place o-1 10.00 EUR"), in German words ("anlegen
// o-1 10,00 EUR"); a note or reason quoted in German, as the story wrote
// it.
func commandText(c orders.Command) lang.Text {
	verb, ok := commandVerbs[c.Kind]
	if !ok {
		return lang.Plain(c.String())
	}
	t := lang.Textf(lang.Plain("%s %s"), verb, c.OrderID)
	if c.Kind == orders.Place || c.Kind == orders.Amend {
		t = lang.Textf(lang.Plain("%s %s"), t, money(c.Amount))
	}
	return lang.Text{EN: c.String(), DE: t.DE}
}

var commandVerbs = map[orders.Kind]lang.Text{
	orders.Place:  {EN: "place", DE: "anlegen"},
	orders.Amend:  {EN: "amend", DE: "ändern"},
	orders.Cancel: {EN: "cancel", DE: "stornieren"},
}

// actionText names what a process was doing when it reported an error:
// a step, a recovery, a command.
func actionText(action string) lang.Text {
	if t, ok := actionTexts[action]; ok {
		return t
	}
	return lang.Plain(action)
}

var actionTexts = map[string]lang.Text{
	"step":    {EN: "step", DE: "Schritt"},
	"recover": {EN: "recover", DE: "Wiederherstellung"},
	"command": {EN: "command", DE: "Befehl"},
	"replay":  {EN: "replay", DE: "Wiedereinspielen"},
}
