// Package recovery is an exercise (chapter 000 section 5, chapter 003):
// after a restart, a relay releases the claims it still holds from before
// its crash, so that they go out at once instead of after their lease. The
// starter releases every IN_FLIGHT message, as the chapter's
// recoverInFlight literally says. With two relays that steals the live
// claims of the other one. Fix Recover so that the whole matrix, the
// double-crash sweep and random exploration find nothing:
//
//	go test ./exercises/recovery -exercise
//
// # Auf Deutsch
//
// Eine Übung (Kapitel 000 Abschnitt 5, Kapitel 003): nach einem Neustart
// gibt ein Relay die Claims frei, die es von vor seinem Absturz noch hält,
// damit sie sofort hinausgehen statt erst nach ihrer Lease. Der Starter
// gibt jede IN_FLIGHT-Nachricht frei, wie es recoverInFlight im Kapitel
// wörtlich sagt. Mit zwei Relays nimmt das dem anderen seine noch
// gültigen Claims. Ändere Recover so, dass die ganze Matrix, der
// Doppelabsturz-Sweep und die zufällige Exploration nichts finden:
//
//	go test ./exercises/recovery -exercise -lab.lang=de
package recovery

import (
	"outboxlab/lang"
	"outboxlab/variant"
)

// Variant is the exercise's variant: the reference relay with the
// learner's Recover. It claims to be correct.
func Variant() variant.Variant {
	v := variant.Outbox()
	v.Name = "exercise-recovery"
	v.Summary = lang.Text{EN: "the reference relay with the learner's recovery", DE: "das Relay der Referenz mit der Wiederherstellung des Teilnehmers"}
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		ref, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return &relay{RelayAdapter: variant.AdaptRelay(ref), env: env}, nil
	}
	return v
}

type relay struct {
	*variant.RelayAdapter
	env variant.Env
}
