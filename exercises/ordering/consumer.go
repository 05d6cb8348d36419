// Package ordering is an exercise (chapter 001, "Reihenfolge pro
// Geschäftsobjekt": "Bei einer Lücke muss der Empfänger warten"): the
// starter consumer is idempotent, with its inbox in the bill's transaction,
// but it bills events in the order they arrive. When o-1's amendment
// arrives before its acceptance, or the acceptance is a dead letter for a
// while, billing applies them in the wrong order. It comes in two steps:
//
//  1. In handle (starter.go), bill each order's events in sequence: an
//     event already applied or older is stale; one that comes early waits,
//     parked (c.park), until the one before it is applied; the next is
//     billed (c.apply), and then the parked ones now next (c.applyParked).
//     inbox.LoadApplied reads the last sequence applied; given.go hands
//     out apply and park. Then only wrong-currency fails, and its hint
//     says so.
//
//  2. In applyParked (starter.go), a parked event billing cannot apply
//     when its turn comes (an amount in another currency than its
//     order's) becomes a dead letter (inbox.TableDead) instead of undoing
//     the whole transaction.
//
// Grade your work after each step:
//
//	go test ./exercises/ordering -exercise
//
// The rest of the consumer (receiving, acknowledging, Park for a message
// billing cannot read, Bill for billing's effect) is package
// exercises/frame, which the consumer exercises share.
//
// # Auf Deutsch
//
// Eine Übung (Kapitel 001, „Reihenfolge pro Geschäftsobjekt“: „Bei einer
// Lücke muss der Empfänger warten“): der Starter-Consumer ist idempotent,
// die Inbox in der Transaktion der Rechnung, aber er berechnet Ereignisse
// in der Reihenfolge ihrer Ankunft. Kommt die Änderung von o-1 vor ihrer
// Annahme an, oder ist die Annahme eine Weile ein Dead Letter, wendet
// Billing sie in falscher Reihenfolge an. Die Übung hat zwei Schritte:
//
//  1. In handle (starter.go) die Ereignisse jeder Bestellung in Sequenz
//     berechnen: ein schon angewendetes oder älteres ist veraltet; ein zu
//     frühes wartet geparkt (c.park), bis das davor angewendet ist; das
//     nächste wird berechnet (c.apply), danach die geparkten, die jetzt an
//     der Reihe sind (c.applyParked). inbox.LoadApplied liest die zuletzt
//     angewendete Sequenz; given.go gibt apply und park vor. Danach
//     scheitert nur noch wrong-currency, und sein Hinweis sagt das.
//
//  2. In applyParked (starter.go) wird ein geparktes Ereignis, das Billing
//     nicht anwenden kann, wenn es an der Reihe ist (ein Betrag in einer
//     anderen Währung als der seiner Bestellung), ein Dead Letter
//     (inbox.TableDead), statt die ganze Transaktion rückgängig zu machen.
//
// Bewerte deine Arbeit nach jedem Schritt:
//
//	go test ./exercises/ordering -exercise -lab.lang=de
package ordering

import (
	"outboxlab/exercises/frame"
	"outboxlab/lang"
	"outboxlab/variant"
)

// Variant is the exercise's variant: the reference service and relay with
// the learner's consumer. It claims to be correct.
func Variant() variant.Variant {
	v := variant.Outbox()
	v.Name = "exercise-ordering"
	v.Summary = lang.Text{EN: "the learner's consumer: inbox, bill, and order per order", DE: "der Consumer des Teilnehmers: Inbox, Rechnung und Reihenfolge je Bestellung"}
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		c := &consumer{}
		c.Consumer = frame.New(env, c.handle)
		return c, nil
	}
	return v
}

// consumer is the exercise's frame with the learner's handle (in
// starter.go; the reference solution's is in exercises/_solutions).
type consumer struct{ *frame.Consumer }
