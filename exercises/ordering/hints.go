package ordering

import (
	"outboxlab/lab/check"
	"outboxlab/lab/grade"
)

// Hints say, per outcome, what to look at when the exercise fails; its
// test prints them (in German with -lab.lang=de).
var Hints = map[check.Outcome]grade.Hint{
	check.OutOfOrder: {
		EN: "an older event of an order was billed after a newer one: keep the last sequence billed per order " +
			"(inbox.LoadApplied, SetApplied) and park an event that is not the next one.",
		DE: "ein älteres Ereignis einer Bestellung wurde nach einem neueren berechnet: merke dir pro Bestellung die zuletzt " +
			"berechnete Sequenz (inbox.LoadApplied, SetApplied) und parke ein Ereignis, das nicht das nächste ist.",
	},
	check.Lost: {
		EN: "a change was never billed: was an early event discarded instead of parked (chapter 001: the highest version " +
			"alone is not enough), or skipped as stale although it was new? Or did a parked one that billing could not " +
			"apply when its turn came vanish, or take the event before it down with it? Make it a dead letter " +
			"(inbox.TableDead), as Step does with one that arrives in its turn.",
		DE: "eine Änderung wurde nie berechnet: wurde ein zu frühes Ereignis verworfen statt geparkt (Kapitel 001: nur die " +
			"höchste Version zu speichern reicht nicht), oder als veraltet übersprungen, obwohl es neu war? Oder ist ein " +
			"geparktes, das Billing nicht anwenden konnte, als es an der Reihe war, verschwunden oder hat das Ereignis davor " +
			"mitgerissen? Mach es zum Dead Letter (inbox.TableDead), wie Step es mit einem tut, das zur rechten Zeit kommt.",
	},
	check.Stuck: {
		EN: "billing holds an event that could have been billed: after billing an event, bill the parked ones that are now next.",
		DE: "Billing hält ein Ereignis, das hätte berechnet werden können: berechne nach einem Ereignis die geparkten, die jetzt an der Reihe sind.",
	},
	check.Duplicate: {
		EN: "an event was billed twice: its id must go into the inbox in the transaction that bills it, also when it was parked.",
		DE: "ein Ereignis wurde zweimal berechnet: seine ID gehört in der Transaktion, die es berechnet, in die Inbox, auch wenn es geparkt war.",
	},
}
