package dedup

import (
	"outboxlab/lab/check"
	"outboxlab/lab/grade"
)

// Hints say, per outcome, what to look at when the exercise fails; its
// test prints them (in German with -lab.lang=de).
var Hints = map[check.Outcome]grade.Hint{
	check.Duplicate: {
		EN: "a message was billed twice: the crash came after the bill's commit and before the id's, " +
			"and the redelivery did not find the id. Record it in the bill's transaction.",
		DE: "eine Nachricht wurde zweimal berechnet: der Absturz kam nach dem Commit der Rechnung und vor dem der ID, " +
			"und die erneute Zustellung fand die ID nicht. Trage sie in der Transaktion der Rechnung ein.",
	},
	check.Lost: {
		EN: "a change was never billed: was the id recorded although the bill was not?",
		DE: "eine Änderung wurde nie berechnet: wurde die ID eingetragen, obwohl die Rechnung es nicht wurde?",
	},
}
