package ordering

import (
	"outboxlab/lab/grade"
	"outboxlab/variant"
)

// Hints say, per outcome, what to look at when the exercise fails; its
// test prints them (in German with -lab.lang=de).
var Hints = map[variant.Outcome]grade.Hint{
	variant.OutOfOrder: {
		EN: "an older event of an order was billed after a newer one (step 1): read the last sequence billed for the order " +
			"(inbox.LoadApplied); park an event that is not the next one (c.park), bill the next (c.apply, which records its " +
			"sequence), then the parked ones now next (c.applyParked).",
		DE: "ein älteres Ereignis einer Bestellung wurde nach einem neueren berechnet (Schritt 1): lies die zuletzt berechnete " +
			"Sequenz der Bestellung (inbox.LoadApplied); parke ein Ereignis, das nicht das nächste ist (c.park), berechne das " +
			"nächste (c.apply, das seine Sequenz einträgt), dann die geparkten, die jetzt an der Reihe sind (c.applyParked).",
	},
	variant.Lost: {
		EN: "a change was never billed: was an early event discarded instead of parked (chapter 001: the highest version " +
			"alone is not enough), or skipped as stale although it was new? Or did a parked one that billing could not " +
			"apply when its turn came vanish, or take the event before it down with it? Make it a dead letter " +
			"(inbox.TableDead), as Step does with one that arrives in its turn.",
		DE: "eine Änderung wurde nie berechnet: wurde ein zu frühes Ereignis verworfen statt geparkt (Kapitel 001: nur die " +
			"höchste Version zu speichern reicht nicht), oder als veraltet übersprungen, obwohl es neu war? Oder ist ein " +
			"geparktes, das Billing nicht anwenden konnte, als es an der Reihe war, verschwunden oder hat das Ereignis davor " +
			"mitgerissen? Mach es zum Dead Letter (inbox.TableDead), wie Step es mit einem tut, das zur rechten Zeit kommt.",
	},
	variant.Stuck: {
		EN: "billing holds an event that could have been billed: after billing an event, bill the parked ones that are now next.",
		DE: "Billing hält ein Ereignis, das hätte berechnet werden können: berechne nach einem Ereignis die geparkten, die jetzt an der Reihe sind.",
	},
	variant.Duplicate: {
		EN: "an event was billed twice: its id must go into the inbox in the transaction that bills it, also when it was parked.",
		DE: "ein Ereignis wurde zweimal berechnet: seine ID gehört in der Transaktion, die es berechnet, in die Inbox, auch wenn es geparkt war.",
	},
}

// Grading is how the exercise is graded: the lab's grader with Hints, and
// at wrong-currency, which is all that fails once step 1 is done, the
// hint of step 2.
var Grading = grade.Options{
	Hints: Hints,
	PointHints: map[string]grade.Hint{"wrong-currency": {
		EN: "only wrong-currency left: step 2. A parked event came in another currency than its order's; when its turn came, " +
			"billing could not apply it, and applyParked's error undid the whole transaction, the event that was next included. " +
			"Make it a dead letter (inbox.TableDead, as inbox.Parked with its reason) and return nil: the events after it wait, " +
			"and the operator's replay bills it once its cause is fixed.",
		DE: "nur noch wrong-currency: Schritt 2. Ein geparktes Ereignis kam in einer anderen Währung als der seiner Bestellung; " +
			"als es an der Reihe war, konnte Billing es nicht anwenden, und der Fehler von applyParked machte die ganze " +
			"Transaktion rückgängig, samt dem Ereignis, das an der Reihe war. Mach es zum Dead Letter (inbox.TableDead, als " +
			"inbox.Parked mit seinem Grund) und gib nil zurück: die Ereignisse danach warten, und das Wiedereinspielen durch " +
			"den Betrieb berechnet es, sobald seine Ursache behoben ist.",
	}},
}
