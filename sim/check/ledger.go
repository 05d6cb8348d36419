package check

import (
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/variant"
)

// applied returns the violations of the ledger's order (OUT_OF_ORDER,
// found as f was gathered), of its effects' origin (PHANTOM) and of their
// number (DUPLICATE).
func applied(f *facts) []Violation {
	vs := f.outOfOrder
	for _, of := range f.committed {
		for i, ef := range of.effects {
			if ef.n > 1 {
				vs = append(vs, Violation{variant.Duplicate, of.id, i + 1, lang.Textf(f.terms.Duplicate, ef.n)})
			}
		}
	}
	for c, ef := range f.others {
		vs = append(vs, Violation{variant.Phantom, c.order, c.seq, lang.Textf(f.terms.Phantom, ef.n)})
		if ef.n > 1 {
			vs = append(vs, Violation{variant.Duplicate, c.order, c.seq, lang.Textf(f.terms.Duplicate, ef.n)})
		}
	}
	return vs
}

// missing returns the committed changes without an effect (LOST, or STUCK
// when the outbox shows why) and what billing holds though it applied it.
func missing(w World, f *facts, stuck []Violation) []Violation {
	terms := f.terms
	var vs []Violation
	held := map[change]bool{}
	for _, v := range stuck {
		held[change{v.AggregateID, v.Sequence}] = true
	}
	waiting := map[change]lang.Text{}
	for _, p := range w.Held {
		c := change{p.Envelope.Event.AggregateID, p.Envelope.Event.Sequence}
		waiting[c] = HeldReason(p, waitingFor(p, w.DeadLetters, f))
		if n, _ := f.applied(c); n > 0 {
			// What billing holds waits for nothing any more, and shows
			// the operator a change as waiting that is done.
			vs = append(vs, Violation{variant.Stuck, c.order, c.seq, lang.Textf(terms.AppliedHeld, p.Envelope.ID, HeldReason(p, 0))})
		}
	}
	for _, of := range f.committed {
		for seq := 1; seq <= of.upTo; seq++ {
			// A change whose message is still in the outbox is not lost: it is
			// stuck there, and that is reported as STUCK.
			c := change{of.id, seq}
			if of.effects[seq-1].n == 0 && !held[c] {
				why, ok := waiting[c]
				if before, stuck := stuckBefore(held, c); ok && stuck {
					// Billing holds it for a predecessor that waits in the
					// outbox: the outbox shows why, so it is STUCK too.
					vs = append(vs, Violation{variant.Stuck, c.order, c.seq, lang.Textf(terms.HeldStuck, why, before)})
					continue
				}
				detail := terms.Never
				if ok {
					detail = lang.Textf(terms.NeverHeld, why)
				}
				vs = append(vs, Violation{variant.Lost, c.order, c.seq, detail})
			}
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
			vs = append(vs, Violation{variant.GaveUp, p.AggregateID, p.Sequence,
				lang.Textf(terms.ParkedTransient, p.MessageID, p.Attempts)})
			continue
		}
		if p.Attempts > p.Allowed {
			vs = append(vs, Violation{variant.Storm, p.AggregateID, p.Sequence,
				lang.Textf(terms.ParkedStorm, p.MessageID, p.Attempts, p.Allowed)})
		}
	}
	for _, f := range PolicyFindings(w.Relay, w.Consumer, w.Exercise) {
		vs = append(vs, f.Violation())
	}
	for _, d := range w.Unreplayed {
		vs = append(vs, Violation{variant.Stuck, d.AggregateID, d.Sequence,
			lang.Textf(lang.Text{EN: "the operator fixed its cause and replayed message %s (in %s), and it stayed a dead letter", DE: "der Operator hat die Ursache behoben und die Nachricht %s erneut eingespielt (in %s), und sie blieb ein Dead Letter"}, d.MessageID, d.Where)})
	}
	for _, d := range w.Vanished {
		vs = append(vs, Violation{variant.Lost, d.AggregateID, d.Sequence,
			lang.Textf(lang.Text{EN: "the operator replayed message %s (a dead letter in %s), and it vanished: it is neither a dead letter again, nor delivered, nor waiting to be sent", DE: "der Operator hat die Nachricht %s erneut eingespielt (ein Dead Letter in %s), und sie verschwand: sie ist weder wieder ein Dead Letter noch zugestellt, noch wartet sie auf das Senden"}, d.MessageID, d.Where)})
	}
	for _, d := range w.Delays {
		vs = append(vs, Violation{variant.Late, d.AggregateID, d.Sequence, d.Detail})
	}
	return vs
}

// waitingFor is the sequence number a held message waits for, as the
// facts say: none (0) for a dead letter; for one parked behind a gap, the
// first earlier change of its aggregate without an effect.
func waitingFor(p inbox.Parked, dead []variant.DeadLetter, f *facts) int {
	for _, d := range dead {
		if d.MessageID == p.Envelope.ID {
			return 0
		}
	}
	order := p.Envelope.Event.AggregateID
	for seq := 1; seq < p.Envelope.Event.Sequence; seq++ {
		if n, _ := f.applied(change{order, seq}); n == 0 {
			return seq
		}
	}
	return 0
}
