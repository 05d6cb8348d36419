// Package dedup is an exercise (chapter 000 section 7: "Sonst entsteht ein
// neues Dual-Write-Problem auf Consumer-Seite"; chapter 003): the starter
// consumer checks its inbox before it bills, but records a message's id in
// a transaction of its own, after the bill. A crash between the two
// commits, and the redelivered message bills twice. Make the inbox part of
// the effect's transaction:
//
//	go test ./exercises/dedup -exercise
//
// The consumer applies events in the order they arrive; keeping order per
// order is another exercise, so the variant declares what that costs under
// reorder, poison, unknown-contract and wrong-currency (OUT_OF_ORDER) and
// nothing else.
//
// You write handle, in starter.go: it bills one message. The rest of the
// consumer (receiving, acknowledging, Park for a message billing cannot
// read, Bill for billing's effect) is package exercises/frame, which the
// consumer exercises share.
//
// The grading plays story billing-race too: two billing instances get one
// message at once, and the one that loses the race must take the
// database's refusal of its insert of the id for a duplicate.
//
// # Auf Deutsch
//
// Eine Übung (Kapitel 000 Abschnitt 7: „Sonst entsteht ein neues
// Dual-Write-Problem auf Consumer-Seite“; Kapitel 003): der
// Starter-Consumer schaut vor dem Berechnen in seine Inbox, trägt die ID
// einer Nachricht aber in einer eigenen Transaktion nach der Rechnung ein.
// Ein Absturz zwischen den beiden Commits, und die erneut zugestellte
// Nachricht wird doppelt berechnet. Mache die Inbox zum Teil der
// Transaktion der Wirkung:
//
//	go test ./exercises/dedup -exercise -lab.lang=de
//
// Die Bewertung spielt auch die Geschichte billing-race: zwei
// Billing-Instanzen bekommen eine Nachricht zugleich, und die, die den
// Wettlauf verliert, muss die Abweisung ihres Einfügens der ID durch die
// Datenbank als Duplikat nehmen. Der Consumer wendet Ereignisse in
// Ankunftsreihenfolge an; die Reihenfolge ist eine andere Übung. Du
// schreibst handle in starter.go; den Rest des Consumers teilen die
// Consumer-Übungen im Paket exercises/frame.
package dedup

import (
	"outboxlab/exercises/frame"
	"outboxlab/lang"
	"outboxlab/variant"
)

// Variant is the exercise's variant: the reference service and relay with
// the learner's consumer.
func Variant() variant.Variant {
	v := variant.Outbox()
	v.Name = "exercise-dedup"
	v.Summary = lang.Text{EN: "the learner's consumer: inbox and bill", DE: "der Consumer des Teilnehmers: Inbox und Rechnung"}
	v.Expect = map[string]variant.Outcome{"reorder": variant.OutOfOrder, "poison": variant.OutOfOrder, "unknown-contract": variant.OutOfOrder, "wrong-currency": variant.OutOfOrder}
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
