package sim

import (
	"outboxlab/broker"
	"outboxlab/inbox"
	"outboxlab/lab/check"
	"outboxlab/lab/lang"
	"outboxlab/lab/variant"
	"outboxlab/outbox"
	"outboxlab/store"
)

// The lab reads dead letters and what billing holds through the ports the
// variant's processes expose (variant.DeadLetterKeeper, variant.Holder),
// not from the reference's own tables: a relay or a consumer that keeps
// them elsewhere is judged by what it keeps, not judged blind. The outbox
// table, the contract every polling relay shares, it reads itself, and
// the inbox's tables for a consumer that exposes no port (the course's
// consumers share them).

// deadLetters lists the dead letters: the outbox's (from unsent), the
// relay's own (DeadLetterKeeper) and billing's.
func (w *world) deadLetters(unsent []outbox.Message) []check.DeadLetter {
	var out []check.DeadLetter
	for _, m := range unsent {
		if m.Status == outbox.DeadLetter {
			out = append(out, check.DeadLetter{Where: theOutbox, MessageID: m.ID, AggregateID: m.Event.AggregateID, Sequence: m.Event.Sequence, Reason: m.LastError})
		}
	}
	if k, ok := w.lastRelay.(variant.DeadLetterKeeper); ok {
		out = append(out, k.DeadLetters()...)
	}
	for _, p := range w.billingDeadLetters() {
		out = append(out, check.DeadLetter{Where: w.terms().Consumer, MessageID: p.Envelope.ID, AggregateID: p.Envelope.Event.AggregateID, Sequence: p.Envelope.Event.Sequence, Reason: p.Reason})
	}
	return out
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
// billing's policy allows it (check.ConsumerPolicy.Allowed), one more for
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
		allowed := w.consumerPolicy.Allowed(m)
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

// theOutbox is where a relay's dead letters are, as a sentence names it.
var theOutbox = lang.Text{EN: "the outbox", DE: "der Outbox"}
