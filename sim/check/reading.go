package check

import (
	"time"

	"outboxlab/billing"
	"outboxlab/domain"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/store"
)

// OutboxWrite is one write to an outbox row in the order database's
// commit log, with the row as it was before it: what a reader of the log
// that judges transitions needs (Reader hands each to its caller).
type OutboxWrite struct {
	// Commit is the commit that made the write, By the process that
	// committed it (as the database recorded it, else the writer's name).
	Commit *store.Commit
	By     string
	// Change is the write itself; Next is the row it wrote (a zero
	// message for a delete).
	Change store.Change
	Next   *outbox.Message
	// Seen says the row existed before the write; then Prev is the row as
	// it was (else a zero message), and PrevBy the process that committed
	// Prev.
	Seen   bool
	Prev   *outbox.Message
	PrevBy string
}

// outboxRow is the last write to one outbox row, as a walk of the log
// has passed it. The reader keeps one per row and writes each new
// version of the row into it: the walk copies a 300-byte message once
// per write, not at each look.
type outboxRow struct {
	m   outbox.Message
	by  string
	seq uint64 // the commit that wrote it
	// claimed says m is a claim the log saw being made (the row was
	// written IN_FLIGHT over an earlier version of it): its lease is
	// by's until m.LeaseUntil. A row first seen IN_FLIGHT was claimed
	// as the log shows it being written, by its own lease fields.
	claimed bool
}

// Read walks h.OrderLog once for every check that reads it: it returns
// SafetyOf(h) and Changes(h.OrderLog), and hands every write to an
// outbox row, in the log's order, to each (nil: nobody), for a reader
// that needs more from the same walk (the simulator's situations); each
// must not keep the pointer, which the next write reuses. It is a Reader
// fed the whole log at once.
func Read(h History, each func(*OutboxWrite)) (unsafe []lang.Text, changes []Change) {
	r := NewReader(h.Retention, len(h.Orders), each)
	for i := range h.OrderLog {
		r.Add(&h.OrderLog[i])
	}
	return r.End(h.Ledger, h.Orders, h.Terms)
}

// Reader is Read's walk of the order database's commit log, fed commit by
// commit as the log grows (Add), so that whoever runs the database reads
// each commit once, and can ask what the outbox held at any commit it has
// fed (Outbox) instead of walking the log again. End answers what Read
// returns.
type Reader struct {
	retention time.Duration
	each      func(*OutboxWrite)
	rows      map[string]*outboxRow
	last      map[string]domain.Order // every order's last committed version
	unsafe    []lang.Text
	changes   []Change
	// free are rows made ahead, slab at a time: a row is made once, when
	// the log first writes it, and a run writes a row per message.
	free []outboxRow
	slab int
	w    OutboxWrite    // handed to each: one for the walk
	next outbox.Message // the row a write writes, until it is the row's
	none outbox.Message // a zero message: Prev of a new row, Next of a delete
}

// NewReader returns a Reader that judges deletes by retention (0 is the
// course's), hands every write to an outbox row to each (nil: nobody; see
// Read), and makes its maps for about orders orders.
func NewReader(retention time.Duration, orders int, each func(*OutboxWrite)) *Reader {
	if retention <= 0 {
		retention = outbox.DefaultConfig("").Retention
	}
	return &Reader{
		retention: retention,
		each:      each,
		// Sized for the orders, so that the walk grows them less: each
		// order has an entry in last and a message or more in rows.
		slab:    min(max(orders, 4), 256),
		rows:    make(map[string]*outboxRow, orders),
		last:    make(map[string]domain.Order, orders),
		changes: make([]Change, 0, orders),
	}
}

// Add reads commit c, the next in the log after the last one added. c
// must stay as it is while Add runs (the log's commits do).
func (r *Reader) Add(c *store.Commit) {
	by := committer(*c)
	for _, ch := range c.Changes {
		if ch.Table != outbox.Table {
			r.changes = appendChange(r.changes, r.last, ch)
			continue
		}
		prev, seen := r.rows[ch.Key]
		w := &r.w
		*w = OutboxWrite{Commit: c, By: by, Change: ch, Seen: seen, Prev: &r.none, Next: &r.none}
		if seen {
			w.Prev, w.PrevBy = &prev.m, prev.by
		} else {
			prev = r.newRow()
		}
		if !ch.Deleted {
			r.next = ch.Value.(outbox.Message)
			w.Next = &r.next
		}
		if why := breach(w, prev, r.retention); why.EN != "" {
			r.unsafe = append(r.unsafe, why)
		}
		if r.each != nil {
			r.each(w)
		}
		if ch.Deleted {
			delete(r.rows, ch.Key)
			continue
		}
		if !seen {
			r.rows[ch.Key] = prev
		}
		prev.m, prev.by, prev.seq, prev.claimed = r.next, by, c.Seq, seen && r.next.Status == outbox.InFlight
	}
}

// newRow returns a row for an outbox row the log writes the first time,
// from the slab made ahead.
func (r *Reader) newRow() *outboxRow {
	if len(r.free) == 0 {
		r.free = make([]outboxRow, r.slab)
	}
	row := &r.free[0]
	r.free = r.free[1:]
	return row
}

// Outbox calls fn with every outbox row as the commits added so far
// left it, in no order; fn must not keep m.
func (r *Reader) Outbox(fn func(key string, m *outbox.Message)) {
	for key, row := range r.rows {
		fn(key, &row.m)
	}
}

// End returns what the commits added so far and ledger say (see Read):
// the breaches of safety, billing's overcharges by ledger and orders
// after them, and the committed changes.
func (r *Reader) End(ledger []billing.Entry, orders []domain.Order, terms Terms) (unsafe []lang.Text, changes []Change) {
	if len(r.changes) > 0 {
		changes = r.changes // made with room for the orders: none is nil, as Changes says it
	}
	return append(r.unsafe, overcharged(ledger, orders, terms.orDefault())...), changes
}

// breach says what is wrong with one write to an outbox row (see
// SafetyOf), or nothing; prev is the row's last write before it.
func breach(w *OutboxWrite, prev *outboxRow, retention time.Duration) lang.Text {
	if !w.Seen {
		return lang.Text{}
	}
	c, by := w.Commit, w.By
	var held lease
	if prev.claimed {
		held = lease{holder: prev.by, until: prev.m.LeaseUntil}
	}
	if w.Change.Deleted {
		// A row inserted and deleted by one commit is the CDC pattern:
		// the commit log carries the message.
		if w.Prev.Status != outbox.Sent && prev.seq != c.Seq && !deletedOnSend(w.Prev, held, c, prev.claimed) {
			return lang.Textf(lang.Text{
				EN: "commit %d by %s: %s deleted while %s: only a SENT message may go; an unsent one is the evidence and the replay source",
				DE: "Commit %d von %s: %s gelöscht, während sie %s war: nur eine SENT-Nachricht darf gehen; eine ungesendete ist der Beleg und die Quelle eines erneuten Einspielens"},
				c.Seq, by, w.Prev.ID, w.Prev.Status)
		}
		if keep := w.Prev.SentAt.Add(retention); w.Prev.Status == outbox.Sent && !c.At.IsZero() && c.At.Before(keep) {
			return lang.Textf(lang.Text{
				EN: "commit %d by %s: %s deleted %s after it was SENT: retention keeps a SENT message %s, as the evidence",
				DE: "Commit %d von %s: %s %s nach SENT gelöscht: die Aufbewahrung hält eine SENT-Nachricht %s, als Beleg"},
				c.Seq, by, w.Prev.ID, lang.Duration(c.At.Sub(w.Prev.SentAt).Round(time.Second)), lang.Duration(retention))
		}
		return lang.Text{}
	}
	if !prev.claimed && w.Prev.Status == outbox.InFlight {
		held = lease{holder: w.Prev.LeaseOwner, until: w.Prev.LeaseUntil} // claimed before the log begins
	}
	if why := transitionBreach(w.Prev, w.Next, held, c, w.Change.Locked); why.EN != "" {
		return lang.Textf(lang.Text{EN: "commit %d by %s: %s %s", DE: "Commit %d von %s: %s %s"}, c.Seq, by, w.Next.ID, why)
	}
	return lang.Text{}
}

// appendChange appends the committed business change ch is, if it is one
// (see Changes); last holds every order's last committed version.
func appendChange(out []Change, last map[string]domain.Order, ch store.Change) []Change {
	if claim, ok := ch.Value.(domain.Claim); ok && !ch.Deleted && claim.Released {
		return append(out, Change{OrderID: claim.ID, Sequence: claim.Version, Kind: billing.Invoice, Amount: claim.Amount})
	}
	if ch.Table != orders.Table || ch.Deleted {
		return out
	}
	o := ch.Value.(domain.Order)
	prev, seen := last[o.ID]
	last[o.ID] = o
	if seen && o.Version == prev.Version {
		return out // rewritten without a change
	}
	change := Change{OrderID: o.ID, Sequence: o.Version}
	switch {
	case !seen || o.Version == 1:
		change.Kind, change.Amount = billing.Invoice, o.Total
	case o.Status == domain.Cancelled && prev.Status != domain.Cancelled:
		change.Kind, change.Amount = billing.Credit, domain.Money{Minor: -prev.Total.Minor, Currency: prev.Total.Currency}
	default:
		change.Kind, change.Amount = billing.Line, domain.Money{Minor: o.Total.Minor - prev.Total.Minor, Currency: o.Total.Currency}
	}
	return append(out, change)
}
