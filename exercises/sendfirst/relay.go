// Package sendfirst is an exercise (chapter 004, "Zu früh markiert";
// chapter 000 section 5): the starter relay marks its whole batch SENT in
// one commit and sends it afterwards. A crash or a broker failure after
// that commit loses messages that the outbox says were sent. Change Step so
// that SENT means "the broker confirmed it", and the whole matrix, the
// double-crash sweep and random exploration find nothing:
//
//	go test ./exercises/sendfirst -exercise
//
// What a relay needs is in outbox.Message: MarkSent (it checks the lease),
// MarkFailed (with the next attempt's time: Config.Backoff), Release; and
// in outbox.Config the pause a relay takes after a failed send before it
// tries any message again (Config.Pause), so that a broker that is down is
// not asked once for every waiting message.
//
// # Auf Deutsch
//
// Eine Übung (Kapitel 004 „Zu früh markiert“, Kapitel 000 Abschnitt 5):
// das Starter-Relay markiert seinen ganzen Stapel in einem Commit als SENT
// und sendet ihn danach. Ein Absturz oder ein Brokerfehler nach diesem
// Commit verliert Nachrichten, die laut Outbox gesendet sind. Ändere Step
// so, dass SENT heißt „der Broker hat es bestätigt“, und die ganze Matrix,
// der Doppelabsturz-Sweep und die zufällige Exploration nichts finden:
//
//	go test ./exercises/sendfirst -exercise -lab.lang=de
//
// Was ein Relay braucht, steht in outbox.Message: MarkSent (prüft die
// Lease), MarkFailed (mit der Zeit des nächsten Versuchs: Config.Backoff),
// Release; und in outbox.Config die Pause nach einem gescheiterten Senden,
// bevor das Relay irgendeine Nachricht erneut versucht (Config.Pause),
// damit ein ausgefallener Broker nicht für jede wartende Nachricht einmal
// gefragt wird.
package sendfirst

import (
	"time"

	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/variant"
)

// Variant is the exercise's variant: the reference service and consumer
// with the learner's relay. It claims to be correct.
func Variant() variant.Variant {
	v := variant.Outbox()
	v.Name = "exercise-sendfirst"
	v.Summary = lang.Text{EN: "the learner's relay: claim, send, mark", DE: "das Relay des Teilnehmers: claimen, senden, markieren"}
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		ref, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return &relay{RelayAdapter: variant.AdaptRelay(ref), env: env, cfg: outbox.DefaultConfig(env.Owner)}, nil
	}
	return v
}

// relay uses the reference for its claim, recovery and wake-ups; Step is
// the learner's, and so are failed and pausedUntil, if Step needs them.
type relay struct {
	*variant.RelayAdapter
	env variant.Env
	cfg outbox.Config
	// failed counts the failed sends in a row; pausedUntil is when the
	// relay may try again after the last of them.
	failed      int
	pausedUntil time.Time
}
