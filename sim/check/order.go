package check

import (
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/lang"
	"outboxlab/variant"
)

// One rule for an aggregate's order at the broker (chapter 001,
// "Reihenfolge pro Geschäftsobjekt": events swapped by parallel relay
// workers let a downstream service restore an outdated state; the real
// contract's rule 2 says the same): a relay must not publish an
// aggregate's later event before the first copy of an earlier one while
// the earlier one is still being tried. Publishing past a message that
// was given up (a dead letter) is allowed where the variant declares it
// (World.PastDeadLetters: CDC from the commit log cannot hold an
// aggregate back); billing's gap handling must hold then. Billing parks a
// gap as a second line of defence; a downstream view that trusts the
// broker's order shows the harm of a swap (statusView).

// InLogOrder returns storage times for a broker's log of n messages that
// records its order and not when: one time a position, in order
// (World.StoredAt). An aggregate's order at the broker is then judged by
// the log's order alone, as real parts' logs give it.
func InLogOrder(n int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = time.Unix(0, int64(i+1)).UTC()
	}
	return out
}

// brokerOrder finds the events of an aggregate whose first copy the
// broker stored before the first copy of an earlier event of it (both
// committed changes), unless the earlier one was given up (a dead letter
// at the end of the work, tried no more after the later one was stored)
// and the variant declares it publishes past dead letters. It returns
// them as OUT_OF_ORDER, one for each later event, and the aggregates
// they broke. A world without the broker's record of when it stored each
// message (StoredAt) is not judged.
func brokerOrder(w World, f *facts, cs *copies) ([]Violation, map[string]bool) {
	if len(w.StoredAt) != len(w.Published) || len(w.Published) == 0 {
		return nil, nil
	}
	type stored struct {
		at time.Time
		i  int
	}
	first := func(c change) (stored, bool) {
		fc, ok := cs.first[c]
		if !ok {
			return stored{}, false
		}
		return stored{w.StoredAt[fc.i], fc.i}, true
	}
	// The dead letters and the tries are read only when an event was
	// stored before an earlier one: most runs store none so.
	var dead map[change]bool
	var tried map[change][]time.Time // during the work
	readTries := func() {
		if tried != nil {
			return
		}
		dead, tried = map[change]bool{}, map[change][]time.Time{}
		for _, d := range w.DeadLetters {
			dead[change{d.AggregateID, d.Sequence}] = true
		}
		for _, t := range w.Tries {
			if w.WorkEnded.IsZero() || t.At.Before(w.WorkEnded) {
				c := change{t.AggregateID, t.Sequence}
				tried[c] = append(tried[c], t.At)
			}
		}
	}
	var vs []Violation
	broke := map[string]bool{}
	for _, n := range cs.order {
		if of, ok := f.orders[n.order]; !ok || n.seq > of.version {
			continue // no committed change: PHANTOM says it
		}
		fn, _ := first(n)
		for seq := 1; seq < n.seq; seq++ {
			m := change{n.order, seq}
			fm, ok := first(m)
			if !ok || fm.i < fn.i {
				continue // in order, or never stored: LOST or STUCK say it
			}
			readTries()
			still := false
			for _, at := range tried[m] {
				still = still || !at.Before(fn.at)
			}
			if !still && dead[m] && w.PastDeadLetters {
				continue // past a dead letter, as the variant declares
			}
			why := lang.Text{EN: "which was still to be sent", DE: "die noch zu senden war"}
			if !still && dead[m] {
				why = lang.Text{
					EN: "which was a dead letter then: the variant does not declare that it publishes past one (variant.Variant.PublishesPastDeadLetters)",
					DE: "die damals ein Dead Letter war: die Variante erklärt nicht, dass sie an einem vorbei veröffentlicht (variant.Variant.PublishesPastDeadLetters)"}
			}
			vs = append(vs, Violation{variant.OutOfOrder, n.order, n.seq, lang.Textf(lang.Text{
				EN: "first stored at the broker at %s, before the first copy of #%d (stored at %s), %s: a consumer that trusts the broker's order reads #%d first (chapter 001: Reihenfolge pro Geschäftsobjekt)",
				DE: "zuerst um %s beim Broker gespeichert, vor der ersten Kopie von #%d (gespeichert um %s), %s: ein Consumer, der der Reihenfolge des Brokers vertraut, liest #%d zuerst (Kapitel 001: Reihenfolge pro Geschäftsobjekt)"},
				clock(fn.at), seq, clock(fm.at), why, n.seq)})
			broke[n.order] = true
			break
		}
	}
	return vs, broke
}

// statusView is an order-status view downstream that trusts the broker's
// order, as a shipping or a search service does: it reads the broker's
// log as stored, once per message id, and keeps for each order the
// status of the last event it read. For each order in broke, a view
// that ends on an event older than one it read before shows an outdated
// status: OUT_OF_ORDER, naming it.
func statusView(published []broker.Envelope, orders []domain.Order, broke map[string]bool) []Violation {
	if len(broke) == 0 {
		return nil
	}
	type shown struct {
		seq, newest int
		status      string
		newestIs    string
	}
	view := map[string]*shown{}
	var ids []string
	read := map[string]bool{}
	for _, e := range published {
		agg := e.Event.AggregateID
		if !broke[agg] || read[e.ID] {
			continue
		}
		read[e.ID] = true
		s, ok := view[agg]
		if !ok {
			s = &shown{}
			view[agg] = s
			ids = append(ids, agg)
		}
		s.seq, s.status = e.Event.Sequence, statusOf(e.Event)
		if s.seq > s.newest {
			s.newest, s.newestIs = s.seq, s.status
		}
	}
	status := map[string]domain.OrderStatus{}
	for _, o := range orders {
		status[o.ID] = o.Status
	}
	var vs []Violation
	for _, id := range ids {
		s := view[id]
		if s.seq >= s.newest {
			continue
		}
		vs = append(vs, Violation{variant.OutOfOrder, id, s.seq, lang.Textf(lang.Text{
			EN: "the order-status view, which keeps the last status it read as a shipping or search service does, shows %s %s (from #%d, read last) after it read #%d (%s): an outdated state restored; the order is %s",
			DE: "die Bestellstatus-Sicht, die wie ein Versand- oder Suchdienst den zuletzt gelesenen Status behält, zeigt %s %s (aus #%d, zuletzt gelesen), nachdem sie #%d (%s) gelesen hatte: ein veralteter Zustand wiederhergestellt; die Bestellung ist %s"},
			id, s.status, s.seq, s.newest, s.newestIs, status[id])})
	}
	return vs
}

// statusOf is the status an event tells a view: ACCEPTED for an order
// accepted or amended, CANCELLED for one cancelled, a row's status for a
// table row, else the event's type.
func statusOf(r domain.Record) string {
	e, err := domain.Decode(r)
	if err != nil {
		return r.Type
	}
	switch e := e.(type) {
	case domain.OrderAccepted, domain.OrderAmended:
		return string(domain.Accepted)
	case domain.OrderCancelled:
		return string(domain.Cancelled)
	case domain.OrderRow:
		return string(e.Status)
	}
	return r.Type
}

// copies is the broker's log (World.Published) by change, read once for
// the checks of its order and of the message contract: where the first
// copy of each change is, the changes in the order first stored, and
// whether a change was stored under a second message id (only then can
// the contract be broken).
type copies struct {
	first   map[change]firstCopy
	order   []change
	renamed bool
}

// firstCopy is the first copy of a change in the broker's log: its index
// and message id.
type firstCopy struct {
	i  int
	id string
}

// copiesOf reads the broker's log published into copies.
func copiesOf(published []broker.Envelope) *copies {
	cs := &copies{first: make(map[change]firstCopy, len(published)), order: make([]change, 0, len(published))}
	for i, e := range published {
		c := change{e.Event.AggregateID, e.Event.Sequence}
		fc, seen := cs.first[c]
		switch {
		case !seen:
			cs.first[c] = firstCopy{i, e.ID}
			cs.order = append(cs.order, c)
		case fc.id != e.ID:
			cs.renamed = true
		}
	}
	return cs
}
