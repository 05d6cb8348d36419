package recovery

import (
	"outboxlab/lab/check"
	"outboxlab/lab/grade"
)

// Hints say, per outcome, what to look at when the exercise fails; its
// test prints them (in German with -lab.lang=de).
var Hints = map[check.Outcome]grade.Hint{
	check.Unsafe: {
		EN: "two relays owned one message at once: a restarted relay released a claim whose lease was still live. " +
			"Whose claims may a relay give back? (The lease owner is in the message.)",
		DE: "zwei Relays besaßen eine Nachricht gleichzeitig: ein neu gestartetes Relay gab einen Claim frei, dessen Lease noch lief. " +
			"Wessen Claims darf ein Relay zurückgeben? (Der Besitzer der Lease steht in der Nachricht.)",
	},
	check.Stuck: {
		EN: "a message stayed IN_FLIGHT: a claim was never released. Release this relay's own claims.",
		DE: "eine Nachricht blieb IN_FLIGHT: ein Claim wurde nie freigegeben. Gib die eigenen Claims dieses Relays frei.",
	},
}
