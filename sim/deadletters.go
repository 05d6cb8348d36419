package sim

import (
	"slices"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/sim/check"
	"outboxlab/store"
	"outboxlab/variant"
)

// Facts, not ports. The lab reads dead letters and what billing holds
// through the ports the variant's processes expose (variant.
// DeadLetterKeeper, variant.Holder), so that a relay or a consumer that
// keeps them elsewhere is judged by what it keeps, and counts them from
// the facts it owns as well, so that a port is never believed alone: a
// message a relay gave up that neither the outbox nor the port reports
// (hiddenDeadLetters), a message billing acknowledged unapplied that its
// port does not hold (hiddenHolds), is a dead letter all the same, and
// hidden (STUCK). The outbox table, the contract every polling relay
// shares, it reads itself, and the inbox's tables for a consumer that
// exposes no port (the course's consumers share them).

// deadLetters lists the dead letters: the outbox's (from unsent), the
// relay's own (DeadLetterKeeper) and billing's.
func (w *world) deadLetters(unsent []outbox.Message) []variant.DeadLetter {
	var out []variant.DeadLetter
	for _, m := range unsent {
		if m.Status == outbox.DeadLetter {
			out = append(out, variant.DeadLetter{Where: theOutbox, MessageID: m.ID, AggregateID: m.Event.AggregateID, Sequence: m.Event.Sequence, Reason: m.LastError})
		}
	}
	if k, ok := w.lastRelay.(variant.DeadLetterKeeper); ok {
		out = append(out, k.DeadLetters()...)
	}
	for _, p := range w.billingDeadLetters() {
		out = append(out, variant.DeadLetter{Where: w.terms().Consumer, MessageID: p.Envelope.ID, AggregateID: p.Envelope.Event.AggregateID, Sequence: p.Envelope.Event.Sequence, Reason: p.Reason})
	}
	return out
}

// hiddenDeadLetters returns the messages the relays gave up by the facts
// the world owns at the end of the work (end), that neither the outbox nor
// the relay's port (known) reports: a message a relay tried and the broker
// refused, that the broker never stored, of a committed change, that the
// outbox neither holds unsent nor recorded as sent (a SENT mark, a delete
// of the holder's claim), while nothing was busy any more: nobody tries it,
// and it was given up wherever the relay keeps it. A run still busy at the
// end of its work has no such facts: something may still be trying.
func (w *world) hiddenDeadLetters(end workEnd, known []variant.DeadLetter) []check.Hidden {
	if !end.quiet || !slices.ContainsFunc(w.tries[:end.tries], func(t check.Try) bool { return t.Failed }) {
		return nil // nothing was refused: nothing was given up
	}
	relays := map[string]bool{}
	for _, p := range w.procs {
		relays[p.name] = p.role == roleRelay
	}
	// A change is the unit: a relay that sends a change again under a
	// new id (new-id-on-resend) gave up no id the broker stored it under
	// (the message contract says what is wrong with it).
	type change struct {
		order string
		seq   int
	}
	type tried struct {
		t        check.Try
		n        int
		refused  bool
		byRelays bool
	}
	var order []change
	byChange := map[change]*tried{}
	for _, t := range w.tries[:end.tries] {
		c := change{t.AggregateID, t.Sequence}
		tr, ok := byChange[c]
		if !ok {
			tr = &tried{t: t, byRelays: true}
			byChange[c] = tr
			order = append(order, c)
		}
		tr.t.MessageID, tr.t.By = t.MessageID, t.By // its last try
		tr.n++
		tr.refused = tr.refused || t.Failed
		tr.byRelays = tr.byRelays && relays[t.By]
	}
	// Only a change its relays tried and were refused can have been
	// given up: most runs have none, and need not read the log, the
	// broker and the books below.
	givenUp := false
	for _, tr := range byChange {
		givenUp = givenUp || tr.byRelays && tr.refused
	}
	if !givenUp {
		return nil
	}
	accounted := map[change]bool{} // reported, waiting, or marked sent
	for _, d := range known {
		accounted[change{d.AggregateID, d.Sequence}] = true
	}
	for _, m := range end.unsent {
		accounted[change{m.Event.AggregateID, m.Event.Sequence}] = true // waiting, or a dead letter the outbox shows
	}
	for _, e := range markedSent(end.orderLog) {
		accounted[change{e.AggregateID, e.Sequence}] = true
	}
	stored := map[change]bool{}
	for _, e := range w.broker.Log()[:end.stored] {
		stored[change{e.Event.AggregateID, e.Event.Sequence}] = true
	}
	committed := map[string]int{}
	orders, _, _ := w.books()
	for _, o := range orders {
		committed[o.ID] = o.Version
	}
	var out []check.Hidden
	for _, c := range order {
		tr := byChange[c]
		if !tr.byRelays || !tr.refused || stored[c] || accounted[c] || c.seq > committed[c.order] {
			continue
		}
		out = append(out, check.Hidden{MessageID: tr.t.MessageID, AggregateID: c.order, Sequence: c.seq,
			Facts: lang.Textf(lang.Text{
				EN: "tried %d time(s) by %s, refused, never stored by the broker, and nobody tries it any more: it was given up",
				DE: "%d-mal von %s versucht, abgewiesen, nie vom Broker gespeichert, und niemand versucht sie mehr: sie wurde aufgegeben"},
				tr.n, tr.t.By),
			Unseen: w.deadLetterPort()})
	}
	return out
}

// deadLetterPort says that neither the outbox nor the relay's port shows
// a dead letter.
func (w *world) deadLetterPort() lang.Text {
	if _, ok := w.lastRelay.(variant.DeadLetterKeeper); ok {
		return lang.Text{EN: "neither the outbox nor the relay's dead-letter port (variant.DeadLetterKeeper) shows it", DE: "weder die Outbox noch der Dead-Letter-Port des Relays (variant.DeadLetterKeeper) zeigt sie"}
	}
	return lang.Text{EN: "the outbox does not show it as a DEAD_LETTER row, and the relay has no dead-letter port (variant.DeadLetterKeeper)", DE: "die Outbox zeigt sie nicht als DEAD_LETTER-Zeile, und das Relay hat keinen Dead-Letter-Port (variant.DeadLetterKeeper)"}
}

// markedSent returns the changes (aggregate and sequence) of the messages
// the outbox recorded as sent in log: a SENT mark, or a delete of a row in flight (a relay that
// deletes on send), whether or not the broker had them.
func markedSent(log []store.Commit) []broker.Target {
	var out []broker.Target
	type row struct {
		status outbox.Status
		event  broker.Target
	}
	last := map[string]row{} // each row's last write, without its payload
	for _, c := range log {
		for _, ch := range c.Changes {
			if ch.Table != outbox.Table {
				continue
			}
			prev, seen := last[ch.Key]
			if ch.Deleted {
				if seen && prev.status == outbox.InFlight {
					out = append(out, prev.event)
				}
				delete(last, ch.Key)
				continue
			}
			m := ch.Value.(outbox.Message)
			event := broker.Target{AggregateID: m.Event.AggregateID, Sequence: m.Event.Sequence}
			if m.Status == outbox.Sent {
				out = append(out, event)
			}
			last[ch.Key] = row{m.Status, event}
		}
	}
	return out
}

// hiddenHolds returns the messages billing acknowledged and has not
// applied by now (the end of the work), by the broker's record of its
// acknowledgements, that billing's port (variant.Holder) does not hold: a
// consumer without a port is read from the inbox's tables, which show
// what they hold. Those the end of the run shows applied billing kept
// where its port does not look (workEnd.heldAll); the others it dropped.
func (w *world) hiddenHolds() []check.Hidden {
	h, ok := w.lastConsumer.(variant.Holder)
	if !ok {
		return nil
	}
	applied := appliedChanges(w.ledger())
	held := map[string]bool{}
	for _, p := range h.Held() {
		held[p.Envelope.ID] = true
	}
	var out []check.Hidden
	for _, e := range w.broker.Acked(w.subscription()) {
		if applied[broker.Target{AggregateID: e.Event.AggregateID, Sequence: e.Event.Sequence}] || held[e.ID] {
			continue
		}
		out = append(out, check.Hidden{MessageID: e.ID, AggregateID: e.Event.AggregateID, Sequence: e.Event.Sequence,
			Facts: lang.Textf(lang.Text{
				EN: "%s acknowledged it to the broker without applying its change and kept it: the operator's replay put it through",
				DE: "%s hat sie beim Broker bestätigt, ohne ihre Änderung anzuwenden, und behielt sie: das erneute Einspielen durch den Operator brachte sie durch"}, w.subscription()),
			Unseen: lang.Textf(lang.Text{EN: "%s's port (variant.Holder) does not hold it", DE: "der Port von %s (variant.Holder) hält sie nicht"}, w.subscription())})
	}
	return out
}

// appliedChanges returns the changes ledger applied, by order and
// sequence.
func appliedChanges(ledger []billing.Entry) map[broker.Target]bool {
	applied := make(map[broker.Target]bool, len(ledger))
	for _, e := range ledger {
		applied[broker.Target{AggregateID: e.OrderID, Sequence: e.Sequence}] = true
	}
	return applied
}

// held returns what billing holds without having applied it: parked
// behind a gap, and its dead letters.
func (w *world) held() []inbox.Parked { return w.billingHolder().Held() }

// billingDeadLetters returns billing's dead letters.
func (w *world) billingDeadLetters() []inbox.Parked { return w.billingHolder().DeadLetters() }

// billingHolder returns billing's port (variant.Holder), or the inbox's
// tables for a consumer without one.
func (w *world) billingHolder() variant.Holder {
	if h, ok := w.lastConsumer.(variant.Holder); ok {
		return h
	}
	return inboxTables{w.billingDB}
}

// inboxTables reads what a consumer holds from the inbox's tables, which
// the course's consumers share; nothing if the database has none.
type inboxTables struct{ db *store.DB }

func (t inboxTables) Held() []inbox.Parked {
	if !t.db.HasTable(inbox.TableDead) {
		return nil
	}
	return inbox.Held(t.db)
}

func (t inboxTables) DeadLetters() []inbox.Parked {
	if !t.db.HasTable(inbox.TableDead) {
		return nil
	}
	return inbox.DeadLetters(t.db)
}

// billingParks tracks the dead letters billing made, to count the
// attempts each took (see notePark).
type billingParks struct {
	// seen are the dead letters already counted, by message id, until
	// they are replayed; base is how many deliveries of each billing had
	// given back when it was last replayed.
	seen map[string]bool
	base map[string]int
	// parked are the counted dead letters of messages with a planned
	// fault (World.BillingParked).
	parked []check.ParkAttempts
}

// notePark counts the attempts of every dead letter billing made since
// the last look, for a message with a planned fault: the deliveries of it
// that billing gave back since its last replay (the broker counts them,
// whatever billing recorded), and the one that parked it; and what
// billing's policy allows it (variant.ConsumerPolicy.Allowed), one more for
// every failed commit of the run (a failed commit gives a delivery back).
func (w *world) notePark() {
	planned := map[broker.Target]check.MessageFaults{}
	for _, m := range w.plannedFaults().Billing {
		planned[broker.Target{AggregateID: m.AggregateID, Sequence: m.Sequence}] = m
	}
	if len(planned) == 0 {
		return
	}
	for _, p := range w.billingDeadLetters() {
		id := p.Envelope.ID
		if w.parks.seen[id] {
			continue
		}
		if w.parks.seen == nil {
			w.parks.seen = map[string]bool{}
		}
		w.parks.seen[id] = true
		t := broker.Target{AggregateID: p.Envelope.Event.AggregateID, Sequence: p.Envelope.Event.Sequence}
		m, ok := planned[t]
		if !ok {
			continue
		}
		allowed := check.Allowed(w.consumerPolicy, m)
		if allowed > 0 {
			allowed += w.failed
		}
		attempts := w.broker.Nacks(w.subscription(), id) - w.parks.base[id] + 1
		w.parks.parked = append(w.parks.parked, check.ParkAttempts{MessageID: id, AggregateID: t.AggregateID, Sequence: t.Sequence, Attempts: attempts, Allowed: allowed})
	}
}

// replayingBilling is called just before billing's dead letters are
// replayed: each starts its count of attempts anew.
func (w *world) replayingBilling() {
	w.notePark()
	for _, p := range w.billingDeadLetters() {
		id := p.Envelope.ID
		if w.parks.base == nil {
			w.parks.base = map[string]int{}
		}
		w.parks.base[id] = w.broker.Nacks(w.subscription(), id)
		delete(w.parks.seen, id)
	}
}

// unsentMessages returns the outbox's messages that are not SENT, oldest
// first, or nil for a variant without an outbox.
func (w *world) unsentMessages() []outbox.Message {
	if !w.orderDB.HasTable(outbox.Table) {
		return nil
	}
	return outbox.Unsent(w.orderDB)
}

// byTheFacts is where a dead letter no port reports is, as a sentence
// names it.
var byTheFacts = lang.Text{EN: "the relay, by the facts (no port reports it)", DE: "dem Relay, nach den Fakten (kein Port meldet sie)"}

// theOutbox is where a relay's dead letters are, as a sentence names it.
var theOutbox = lang.Text{EN: "the outbox", DE: "der Outbox"}
