package check

import (
	"fmt"
	"time"

	"outboxlab/billing"
	"outboxlab/domain"
	"outboxlab/outbox"
	"outboxlab/store"
)

// Safety checks what must hold at every moment of a run, not only at its
// end, from the order database's commit log and billing's ledger:
//
//   - no two live leases on one message: a claim never takes a message
//     whose previous lease had not expired, and nobody but its owner
//     releases a live claim (judged by the database's clock);
//   - nothing is marked SENT by a relay that does not hold a live lease;
//   - no terminal state is left: a SENT message is never written again, a
//     DEAD_LETTER only by an operator's replay to PENDING;
//   - nothing but a SENT message is deleted, and that only once the
//     retention period (outbox.Config.Retention) has passed since it was
//     sent (chapter 001: retention must not destroy the evidence early),
//     except by the relay that sends it and deletes it instead of marking
//     it (see deletedOnSend);
//   - billing never charges an order more than was ordered: the running sum
//     of an order's ledger entries never exceeds the order's total.
//
// It returns every breach in plain words, in the order they happened.
func Safety(orderLog []store.Commit, ledger []billing.Entry, orders []domain.Order) []string {
	retention := outbox.DefaultConfig("").Retention
	var out []string
	last := map[string]outbox.Message{}
	writtenBy := map[string]uint64{} // key -> the commit that wrote last
	for _, c := range orderLog {
		for _, ch := range c.Changes {
			if ch.Table != outbox.Table {
				continue
			}
			prev, seen := last[ch.Key]
			if ch.Deleted {
				// A row inserted and deleted by one commit is the CDC
				// pattern: the commit log carries the message.
				if seen && prev.Status != outbox.Sent && writtenBy[ch.Key] != c.Seq && !deletedOnSend(prev, c) {
					out = append(out, fmt.Sprintf("commit %d by %s: %s deleted while %s: only a SENT message may go; an unsent one is the evidence and the replay source",
						c.Seq, c.Owner, prev.ID, prev.Status))
				}
				if keep := prev.SentAt.Add(retention); seen && prev.Status == outbox.Sent && !c.At.IsZero() && c.At.Before(keep) {
					out = append(out, fmt.Sprintf("commit %d by %s: %s deleted %s after it was SENT: retention keeps a SENT message %s, as the evidence",
						c.Seq, c.Owner, prev.ID, c.At.Sub(prev.SentAt).Round(time.Second), retention))
				}
				delete(last, ch.Key)
				continue
			}
			m := ch.Value.(outbox.Message)
			last[ch.Key] = m
			writtenBy[ch.Key] = c.Seq
			if !seen {
				continue
			}
			if why := transitionBreach(prev, m, c); why != "" {
				out = append(out, fmt.Sprintf("commit %d by %s: %s %s", c.Seq, c.Owner, m.ID, why))
			}
		}
	}
	totals := map[string]domain.Money{}
	for _, o := range orders {
		totals[o.ID] = o.Total
	}
	charged := map[string]int64{}
	for _, e := range ledger {
		total, ok := totals[e.OrderID]
		if !ok {
			continue // a PHANTOM, reported by Check
		}
		charged[e.OrderID] += e.Amount.Minor
		if charged[e.OrderID] > total.Minor {
			out = append(out, fmt.Sprintf("ledger %s: %s charged %s after #%d, more than its total %s",
				e.Key, e.OrderID, domain.Money{Minor: charged[e.OrderID], Currency: total.Currency}, e.Sequence, total))
		}
	}
	return out
}

// deletedOnSend reports whether a delete is a relay's record of a send
// (outbox.Config.DeleteOnSend; chapter 004: "kann der Versandprozess den
// Eintrag auch löschen"): the message was in flight under the deleting
// relay's own live lease. As with marking it SENT, only the lease's owner
// may, and only while the lease runs; whether the broker had it first, the
// checker sees downstream (a message deleted unsent is LOST).
func deletedOnSend(prev outbox.Message, c store.Commit) bool {
	return prev.Status == outbox.InFlight && prev.LeaseOwner == c.Owner && !c.At.IsZero() && c.At.Before(prev.LeaseUntil)
}

// transitionBreach says what is wrong with the change from prev to m made
// by commit c, or "" if nothing is. Whether a lease was live when another
// process took or released the message is judged by the database's clock
// (c.At) where the log has it, never by the writer's own clock, which may
// be wrong; a SENT mark is judged by the time its writer checked the lease.
func transitionBreach(prev, m outbox.Message, c store.Commit) string {
	now := c.At
	if now.IsZero() {
		now = m.ClaimedAt
	}
	live := prev.Status == outbox.InFlight && now.Before(prev.LeaseUntil)
	switch {
	case prev.Status == outbox.Sent:
		return fmt.Sprintf("left the terminal state SENT for %s", m.Status)
	case prev.Status == outbox.DeadLetter && (m.Status != outbox.Pending || m.Replays != prev.Replays+1):
		return fmt.Sprintf("left DEAD_LETTER for %s without a replay", m.Status)
	case m.Status == outbox.Sent && prev.Status != outbox.InFlight:
		return fmt.Sprintf("marked SENT from %s, without a claim", prev.Status)
	case m.Status == outbox.Sent && (prev.LeaseOwner != c.Owner || !m.SentAt.Before(prev.LeaseUntil)):
		return fmt.Sprintf("marked SENT at %s by %s, but %s's lease ran until %s",
			clock(m.SentAt), c.Owner, prev.LeaseOwner, clock(prev.LeaseUntil))
	case m.Status == outbox.InFlight && live:
		return fmt.Sprintf("claimed by %s while %s's lease ran until %s", m.LeaseOwner, prev.LeaseOwner, clock(prev.LeaseUntil))
	case live && prev.LeaseOwner != c.Owner:
		return fmt.Sprintf("set %s by %s at %s, while %s's lease ran until %s: %s may be sending it",
			m.Status, c.Owner, clock(now), prev.LeaseOwner, clock(prev.LeaseUntil), prev.LeaseOwner)
	}
	return ""
}

func clock(t time.Time) string { return t.Format("15:04:05.000") }
