package check

import (
	"time"

	"outboxlab/billing"
	"outboxlab/domain"
	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/store"
)

// Safety checks what must hold at every moment of a run, not only at its
// end, from the order database's commit log and billing's ledger:
//
//   - no two live leases on one message: a claim never takes a message
//     whose previous lease had not expired, and nobody but its owner
//     releases a live claim (judged by the database's clock);
//   - nothing is marked SENT by a relay that does not hold a live lease
//     or, in the transaction that marks it, the row's lock;
//   - no terminal state is left: a SENT message is never written again, a
//     DEAD_LETTER only by an operator's replay to PENDING;
//   - nothing but a SENT message is deleted, and that only once the
//     retention period has passed since it was sent (chapter 001:
//     retention must not destroy the evidence early), except by the relay
//     that sends it and deletes it instead of marking it (see
//     deletedOnSend);
//   - billing never charges an order more than was ordered: the running sum
//     of an order's ledger entries never exceeds the order's total.
//
// It judges a commit log without the database's record of who committed
// by the writers' own names, and the course's retention period: see
// SafetyOf. It returns every breach in plain words, in the order they
// happened.
func Safety(orderLog []store.Commit, ledger []billing.Entry, orders []domain.Order) []lang.Text {
	return SafetyOf(History{OrderLog: orderLog, Ledger: ledger, Orders: orders})
}

// History is what SafetyOf judges.
type History struct {
	// OrderLog is the order database's commit log. A lease belongs to the
	// process that committed the claim (store.Commit.Process, as the
	// database knows it), never to the owner name the relay wrote into
	// the row; a log without Process trusts the commit's Owner.
	OrderLog []store.Commit
	Ledger   []billing.Entry
	Orders   []domain.Order
	// Retention is how long a SENT message must be kept after its send:
	// the relay's declared retention (RelayPolicy.Retention; a declared
	// one under MinRetention is a finding of its own); 0 is the course's
	// seven days.
	Retention time.Duration
	// Terms are the words of the system under test (OrderTerms when zero).
	Terms Terms
}

// lease is a live claim as the commit log shows it: the process that
// committed the claim, and until when it holds the message.
type lease struct {
	holder string
	until  time.Time
}

// committer returns the process that made commit c: as the database
// recorded it, or, without that record, the name the writer gave.
func committer(c store.Commit) string {
	if c.Process != "" {
		return c.Process
	}
	return c.Owner
}

// SafetyOf is Safety on h: leases judged by the process that committed
// each claim, retention by h.Retention.
func SafetyOf(h History) []lang.Text {
	unsafe, _ := Read(h, nil)
	return unsafe
}

// overcharged finds ledger entries after which an order was charged more
// than its total.
func overcharged(ledger []billing.Entry, orders []domain.Order, terms Terms) []lang.Text {
	var out []lang.Text
	type charge struct {
		total   domain.Money
		charged int64
	}
	charges := make([]charge, len(orders)) // one for each order, found by id in byID
	byID := make(map[string]*charge, len(orders))
	for i, o := range orders {
		charges[i].total = o.Total
		byID[o.ID] = &charges[i]
	}
	for _, e := range ledger {
		c, ok := byID[e.OrderID]
		if !ok {
			continue // a PHANTOM, reported by Check
		}
		c.charged += e.Amount.Minor
		if c.charged > c.total.Minor {
			out = append(out, lang.Textf(terms.Overcharged,
				e.Key, e.OrderID, MoneyText(domain.Money{Minor: c.charged, Currency: c.total.Currency}), e.Sequence, MoneyText(c.total)))
		}
	}
	return out
}

// deletedOnSend reports whether a delete is a relay's record of a send
// (outbox.Config.DeleteOnSend; chapter 004: "kann der Versandprozess den
// Eintrag auch löschen"): the message was in flight under the deleting
// process's own lease. As with marking it SENT, only the lease's holder
// may, and only while the lease runs; whether the broker had it first,
// the checker sees downstream (a message deleted unsent is LOST). A SENT
// mark is judged by the time its writer checked the lease (SentAt); a
// deleted row keeps no such time, so a delete is judged by what the log
// shows: where the holder's own claim is the row's last write (ownClaim),
// nobody took the row over before the delete committed (a takeover would
// have made the commit a write conflict, or the holder's check fail), and
// the delete is the holder's record of its send, however late it
// committed (a relay frozen between its lease check and its commit);
// otherwise by the commit's time.
func deletedOnSend(prev *outbox.Message, held lease, c *store.Commit, ownClaim bool) bool {
	if held.holder == "" {
		held = lease{holder: prev.LeaseOwner, until: prev.LeaseUntil}
	}
	if prev.Status != outbox.InFlight || held.holder != committer(*c) {
		return false
	}
	return ownClaim || !c.At.IsZero() && c.At.Before(held.until)
}

// transitionBreach says what is wrong with the change from prev to m made
// by commit c, where held is prev's claim (if prev is IN_FLIGHT): the
// process that committed it and until when; locked says c held the row's
// lock (store.Tx.LockSkip): a relay that holds a transaction with the row
// locked FOR UPDATE SKIP LOCKED across its publish (chapter 003's relay)
// owns the row by that lock, not by a lease. Whether a lease was live when
// another process took or released the message is judged by the
// database's clock (c.At) where the log has it, never by the writer's own
// clock, which may be wrong; a SENT mark is judged by the time its writer
// checked the lease. Who holds a lease is judged by the process that
// committed the claim, never by the owner name written into the row,
// which the relay chooses.
func transitionBreach(prev, m *outbox.Message, held lease, c *store.Commit, locked bool) lang.Text {
	now := c.At
	if now.IsZero() {
		now = m.ClaimedAt
	}
	by := committer(*c)
	live := prev.Status == outbox.InFlight && now.Before(held.until)
	switch {
	case prev.Status == outbox.Sent && m.Status == outbox.Sent:
		return lang.Text{EN: "written again after SENT, a terminal state", DE: "nach SENT erneut geschrieben, obwohl das ein Endzustand ist"}
	case prev.Status == outbox.Sent:
		return lang.Textf(lang.Text{EN: "left the terminal state SENT for %s", DE: "verließ den Endzustand SENT nach %s"}, m.Status)
	case prev.Status == outbox.DeadLetter && (m.Status != outbox.Pending || m.Replays != prev.Replays+1):
		return lang.Textf(lang.Text{EN: "left DEAD_LETTER for %s without a replay", DE: "verließ DEAD_LETTER nach %s ohne erneutes Einspielen"}, m.Status)
	case m.Status == outbox.Sent && prev.Status != outbox.InFlight && locked:
		return lang.Text{} // its lock was its claim
	case m.Status == outbox.Sent && prev.Status != outbox.InFlight:
		return lang.Textf(lang.Text{
			EN: "marked SENT from %s, without a claim (a lease, or the row's lock)",
			DE: "aus %s als SENT markiert, ohne Claim (eine Lease oder die Sperre der Zeile)"}, prev.Status)
	case m.Status == outbox.Sent && (held.holder != by || !m.SentAt.Before(held.until)):
		return lang.Textf(lang.Text{
			EN: "marked SENT at %s by %s, but %s's lease ran until %s",
			DE: "um %s von %s als SENT markiert, aber die Lease von %s lief bis %s"},
			clock(m.SentAt), by, held.holder, clock(held.until))
	case m.Status == outbox.InFlight && live && held.holder != by:
		return lang.Textf(lang.Text{
			EN: "claimed by %s while %s's lease ran until %s",
			DE: "von %s geclaimt, während die Lease von %s bis %s lief: zwei gültige Leases zugleich"}, by, held.holder, clock(held.until))
	case live && held.holder != by:
		return lang.Textf(lang.Text{
			EN: "set %s by %s at %s, while %s's lease ran until %s: %s may be sending it",
			DE: "von %[2]s um %[3]s auf %[1]s gesetzt, während die Lease von %[4]s bis %[5]s lief: %[6]s sendet sie womöglich gerade"},
			m.Status, by, clock(now), held.holder, clock(held.until), held.holder)
	}
	return lang.Text{}
}

func clock(t time.Time) string { return t.Format("15:04:05.000") }
