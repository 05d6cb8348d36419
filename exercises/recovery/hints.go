package recovery

import (
	"outboxlab/lab/grade"
	"outboxlab/variant"
)

// Hints say, per outcome, what to look at when the exercise fails; its
// test prints them (in German with -lab.lang=de).
var Hints = map[variant.Outcome]grade.Hint{
	variant.Unsafe: {
		EN: "two relays owned one message at once: a restarted relay released a claim whose lease was still live. " +
			"Whose claims may a relay give back? (The lease owner is in the message.)",
		DE: "zwei Relays besaßen eine Nachricht gleichzeitig: ein neu gestartetes Relay gab einen Claim frei, dessen Lease noch lief. " +
			"Wessen Claims darf ein Relay zurückgeben? (Der Besitzer der Lease steht in der Nachricht.)",
	},
	variant.Stuck: {
		EN: "a message stayed IN_FLIGHT: a claim was never released. Release this relay's own claims.",
		DE: "eine Nachricht blieb IN_FLIGHT: ein Claim wurde nie freigegeben. Gib die eigenen Claims dieses Relays frei.",
	},
}

// Grading is how the exercise is graded: the lab's grader with Hints, and
// where the run that breaks had a relay's clock run wrong (the clock-skew
// row, or an exploration with that fault), the clock's hint: a relay that
// judges leases by its own clock takes another relay's live claim.
var Grading = grade.Options{
	Hints: Hints,
	PointHints: map[string]grade.Hint{"clock-skew": {
		EN: "two relays owned one message at once while a relay's clock ran wrong: a restarted relay judged a lease by its own clock and released a claim whose lease was still live. " +
			"Whose clock says the lease ran out? The database's (Env.DBClock), as now() in the SQL would, never the relay's own; or release only this relay's own claims.",
		DE: "zwei Relays besaßen eine Nachricht gleichzeitig, während die Uhr eines Relays falsch ging: ein neu gestartetes Relay beurteilte eine Lease nach seiner eigenen Uhr und gab einen Claim frei, dessen Lease noch lief. " +
			"Wessen Uhr sagt, dass die Lease abgelaufen ist? Die der Datenbank (Env.DBClock), wie now() im SQL, nie die eigene des Relays; oder gib nur die eigenen Claims dieses Relays frei.",
	}},
}
