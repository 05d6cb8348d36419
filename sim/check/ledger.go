package check

import (
	"outboxlab/lang"

	"outboxlab/billing"
	"outboxlab/inbox"
)

// applied counts billing's effects per change, and returns them with the
// violations of their order (OUT_OF_ORDER), of their origin (PHANTOM) and
// of their number (DUPLICATE).
func applied(w World, committed map[change]bool) (map[change]int, []Violation) {
	terms := w.Terms.orDefault()
	var vs []Violation
	effects := make(map[change]int, len(w.Ledger))
	lastApplied := make(map[string]billing.Entry, len(w.Orders))
	for _, e := range w.Ledger {
		c := change{e.OrderID, e.Sequence}
		effects[c]++
		if prev, ok := lastApplied[e.OrderID]; ok && e.Sequence < prev.Sequence {
			vs = append(vs, Violation{OutOfOrder, e.OrderID, e.Sequence,
				lang.Textf(lang.Text{EN: "%s of #%d applied after %s of #%d", DE: "%s von #%d nach %s von #%d angewendet"}, KindText(e.Kind), e.Sequence, KindText(prev.Kind), prev.Sequence)})
		}
		if prev, ok := lastApplied[e.OrderID]; !ok || e.Sequence > prev.Sequence {
			lastApplied[e.OrderID] = e
		}
	}
	for c, n := range effects {
		if !committed[c] {
			vs = append(vs, Violation{Phantom, c.order, c.seq, lang.Textf(terms.Phantom, n)})
		}
		if n > 1 {
			vs = append(vs, Violation{Duplicate, c.order, c.seq, lang.Textf(terms.Duplicate, n)})
		}
	}
	return effects, vs
}

// missing returns the committed changes without an effect (LOST, or STUCK
// when the outbox shows why) and what billing holds though it applied it.
func missing(w World, committed map[change]bool, effects map[change]int, stuck []Violation) []Violation {
	terms := w.Terms.orDefault()
	var vs []Violation
	held := map[change]bool{}
	for _, v := range stuck {
		held[change{v.AggregateID, v.Sequence}] = true
	}
	waiting := map[change]lang.Text{}
	for _, p := range w.Held {
		c := change{p.Envelope.Event.AggregateID, p.Envelope.Event.Sequence}
		waiting[c] = HeldReason(p, waitingFor(p, w.DeadLetters, effects))
		if effects[c] > 0 {
			// What billing holds waits for nothing any more, and shows
			// the operator a change as waiting that is done.
			vs = append(vs, Violation{Stuck, c.order, c.seq, lang.Textf(terms.AppliedHeld, p.Envelope.ID, HeldReason(p, 0))})
		}
	}
	for c := range committed {
		// A change whose message is still in the outbox is not lost: it is
		// stuck there, and that is reported as STUCK.
		if effects[c] == 0 && !held[c] {
			why, ok := waiting[c]
			if before, stuck := stuckBefore(held, c); ok && stuck {
				// Billing holds it for a predecessor that waits in the
				// outbox: the outbox shows why, so it is STUCK too.
				vs = append(vs, Violation{Stuck, c.order, c.seq, lang.Textf(terms.HeldStuck, why, before)})
				continue
			}
			detail := terms.Never
			if ok {
				detail = lang.Textf(terms.NeverHeld, why)
			}
			vs = append(vs, Violation{Lost, c.order, c.seq, detail})
		}
	}
	return vs
}

// policies returns what the run says of the policies and the operator's
// work: billing's dead letters and attempts, the policies' findings, the
// replays that left a dead letter or lost it, the messages that waited.
func policies(w World) []Violation {
	terms := w.Terms.orDefault()
	var vs []Violation
	for _, p := range w.BillingParked {
		if p.Allowed == 0 {
			vs = append(vs, Violation{GaveUp, p.AggregateID, p.Sequence,
				lang.Textf(terms.ParkedTransient, p.MessageID, p.Attempts)})
			continue
		}
		if p.Attempts > p.Allowed {
			vs = append(vs, Violation{Storm, p.AggregateID, p.Sequence,
				lang.Textf(terms.ParkedStorm, p.MessageID, p.Attempts, p.Allowed)})
		}
	}
	for _, f := range PolicyFindings(w.Relay, w.Consumer, w.Exercise) {
		vs = append(vs, f.Violation())
	}
	for _, d := range w.Unreplayed {
		vs = append(vs, Violation{Stuck, d.AggregateID, d.Sequence,
			lang.Textf(lang.Text{EN: "the operator fixed its cause and replayed message %s (in %s), and it stayed a dead letter", DE: "der Operator hat die Ursache behoben und die Nachricht %s erneut eingespielt (in %s), und sie blieb ein Dead Letter"}, d.MessageID, d.Where)})
	}
	for _, d := range w.Vanished {
		vs = append(vs, Violation{Lost, d.AggregateID, d.Sequence,
			lang.Textf(lang.Text{EN: "the operator replayed message %s (a dead letter in %s), and it vanished: it is neither a dead letter again, nor delivered, nor waiting to be sent", DE: "der Operator hat die Nachricht %s erneut eingespielt (ein Dead Letter in %s), und sie verschwand: sie ist weder wieder ein Dead Letter noch zugestellt, noch wartet sie auf das Senden"}, d.MessageID, d.Where)})
	}
	for _, d := range w.Delays {
		vs = append(vs, Violation{Late, d.AggregateID, d.Sequence, d.Detail})
	}
	return vs
}

// waitingFor is the sequence number a held message waits for, as the
// facts say: none (0) for a dead letter; for one parked behind a gap, the
// first earlier change of its aggregate without an effect.
func waitingFor(p inbox.Parked, dead []DeadLetter, effects map[change]int) int {
	for _, d := range dead {
		if d.MessageID == p.Envelope.ID {
			return 0
		}
	}
	order := p.Envelope.Event.AggregateID
	for seq := 1; seq < p.Envelope.Event.Sequence; seq++ {
		if effects[change{order, seq}] == 0 {
			return seq
		}
	}
	return 0
}
