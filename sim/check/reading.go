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
// that judges transitions needs (Read hands each to its caller).
type OutboxWrite struct {
	// Commit is the commit that made the write, By the process that
	// committed it (as the database recorded it, else the writer's name).
	Commit *store.Commit
	By     string
	// Change is the write itself; Next is the row it wrote (zero for a
	// delete).
	Change store.Change
	Next   outbox.Message
	// Seen says the row existed before the write; then Prev is the row as
	// it was, and PrevBy the process that committed Prev.
	Seen   bool
	Prev   outbox.Message
	PrevBy string
}

// outboxRow is the last write to one outbox row, as a walk of the log
// has passed it.
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
// must not keep the pointer, which the next write reuses.
func Read(h History, each func(*OutboxWrite)) (unsafe []lang.Text, changes []Change) {
	retention := h.Retention
	if retention <= 0 {
		retention = outbox.DefaultConfig("").Retention
	}
	// Sized for the orders, so that the walk grows them less: each order
	// has an entry in last and a message or more in rows.
	rows := make(map[string]outboxRow, len(h.Orders))
	last := make(map[string]domain.Order, len(h.Orders))
	w := new(OutboxWrite) // one for the walk: each write is two messages and more
	for i := range h.OrderLog {
		c := &h.OrderLog[i]
		by := committer(*c)
		for _, ch := range c.Changes {
			if ch.Table != outbox.Table {
				changes = appendChange(changes, last, ch)
				continue
			}
			prev, seen := rows[ch.Key]
			*w = OutboxWrite{Commit: c, By: by, Change: ch, Seen: seen, Prev: prev.m, PrevBy: prev.by}
			if !ch.Deleted {
				w.Next = ch.Value.(outbox.Message)
			}
			if why := breach(w, &prev, retention); why.EN != "" {
				unsafe = append(unsafe, why)
			}
			if each != nil {
				each(w)
			}
			if ch.Deleted {
				delete(rows, ch.Key)
				continue
			}
			rows[ch.Key] = outboxRow{m: w.Next, by: by, seq: c.Seq, claimed: seen && w.Next.Status == outbox.InFlight}
		}
	}
	return append(unsafe, overcharged(h.Ledger, h.Orders, h.Terms.orDefault())...), changes
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
		if w.Prev.Status != outbox.Sent && prev.seq != c.Seq && !deletedOnSend(w.Prev, held, *c, prev.claimed) {
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
	if why := transitionBreach(w.Prev, w.Next, held, *c, w.Change.Locked); why.EN != "" {
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
