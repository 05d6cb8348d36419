package sendfirst

import (
	"outboxlab/lab/grade"
	"outboxlab/variant"
)

// Hints say, per outcome, what to look at when the exercise fails; its
// test prints them (in German with -lab.lang=de).
var Hints = map[variant.Outcome]grade.Hint{
	variant.Lost: {
		EN: "a message is SENT in the outbox and billing never got it: the mark came before the broker's confirmation. " +
			"Send first, mark after, one message at a time.",
		DE: "eine Nachricht ist in der Outbox SENT, und Billing hat sie nie erhalten: die Markierung kam vor der Bestätigung des Brokers. " +
			"Erst senden, dann markieren, eine Nachricht nach der anderen.",
	},
	variant.Stuck: {
		EN: "a message is neither SENT nor DEAD_LETTER: a claim was never marked or given back. " +
			"Record a failed send (MarkFailed) and release the rest of the batch.",
		DE: "eine Nachricht ist weder SENT noch DEAD_LETTER: ein Claim wurde nie markiert oder zurückgegeben. " +
			"Trage ein gescheitertes Senden ein (MarkFailed) und gib den Rest des Stapels frei.",
	},
	variant.Storm: {
		EN: "the broker was asked far too often: a failed send needs a backoff before its next attempt (Config.Backoff), " +
			"and the relay a pause before it tries any message again (Config.Pause): a broker that is down need not be asked once per waiting message.",
		DE: "der Broker wurde viel zu oft gefragt: ein gescheitertes Senden braucht einen Backoff vor dem nächsten Versuch (Config.Backoff), " +
			"und das Relay eine Pause, bevor es irgendeine Nachricht erneut versucht (Config.Pause): einen ausgefallenen Broker muss man nicht für jede wartende Nachricht einmal fragen.",
	},
	variant.OutOfOrder: {
		EN: "the same mark too early: a message marked SENT before it was sent lets its order's next event overtake it at the broker. " +
			"Send first, mark after.",
		DE: "dieselbe zu frühe Markierung: eine Nachricht, die als SENT markiert ist, bevor sie gesendet wurde, lässt das nächste Ereignis ihrer Bestellung am Broker überholen. " +
			"Erst senden, dann markieren.",
	},
	variant.Unsafe: {
		EN: "a message was marked by a relay that no longer held its lease: MarkSent checks the lease; " +
			"write only what it accepts.",
		DE: "eine Nachricht wurde von einem Relay markiert, das seine Lease nicht mehr hielt: MarkSent prüft die Lease; " +
			"schreibe nur, was es annimmt.",
	},
}
