package dedup

import (
	"outboxlab/lab/grade"
	"outboxlab/variant"
)

// Hints say, per outcome, what to look at when the exercise fails; its
// test prints them (in German with -lab.lang=de).
var Hints = map[variant.Outcome]grade.Hint{
	variant.Duplicate: {
		EN: "a message was billed twice: the crash came after the bill's commit and before the id's, " +
			"and the redelivery did not find the id. Record it in the bill's transaction.",
		DE: "eine Nachricht wurde zweimal berechnet: der Absturz kam nach dem Commit der Rechnung und vor dem der ID, " +
			"und die erneute Zustellung fand die ID nicht. Trage sie in der Transaktion der Rechnung ein.",
	},
	variant.Lost: {
		EN: "a change was never billed: was the id recorded although the bill was not?",
		DE: "eine Änderung wurde nie berechnet: wurde die ID eingetragen, obwohl die Rechnung es nicht wurde?",
	},
}

// Grading is how the exercise is graded: the lab's grader with Hints,
// and story billing-race, where two billing instances get one message at
// once (chapter 003): a consumer that checks its inbox and then bills
// races the other, and the one that loses must take the database's
// refusal of its second insert of the id for what it is, a duplicate.
var Grading = grade.Options{
	Hints:   Hints,
	Stories: []string{"billing-race"},
	PointHints: map[string]grade.Hint{"billing-race": {
		EN: "two billing instances got the same message at once; both found nothing in the inbox and billed it. The database refused the second commit (its insert of the id, a unique key): that is the duplicate the inbox exists for. " +
			"Record the id in the bill's transaction, and take store.ErrDuplicateKey from its commit as \"billed before\", not as an error.",
		DE: "zwei Billing-Instanzen bekamen dieselbe Nachricht zugleich; beide fanden nichts in der Inbox und berechneten sie. Die Datenbank wies den zweiten Commit ab (sein Einfügen der ID, ein eindeutiger Schlüssel): das ist das Duplikat, für das die Inbox da ist. " +
			"Trage die ID in der Transaktion der Rechnung ein und nimm store.ErrDuplicateKey aus ihrem Commit als „schon berechnet“, nicht als Fehler.",
	}},
}
