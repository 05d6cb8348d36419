package mistakes

import (
	"time"

	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/variant"
)

// NoBackoff is the reference relay with one change: after a failed send it
// tries again a second later, every time, instead of waiting twice as long
// as before (and its own pause after a failure grows no longer either).
//
// WRONG: a broker that is down gets a request every second for every
// waiting message, and the ten attempts the policy allows are gone within
// seconds: the messages are dead letters long before a ten-minute outage
// ends, and each needs an operator's replay. Backoff is what spreads a
// message's attempts over the time a transient fault lasts.
//
// Chapter 000 section 8 and section 11 ("Retry läuft ohne Backoff und
// verstärkt Störungen").
func NoBackoff() variant.Variant {
	return configMistake("no-backoff",
		lang.Text{EN: "retries a failed send every second instead of backing off: the attempts are gone in seconds", DE: "wiederholt ein gescheitertes Senden jede Sekunde, statt länger zu warten: die Versuche sind in Sekunden verbraucht"},
		"000 sections 8 and 11 \"Retry läuft ohne Backoff und verstärkt Störungen\"",
		map[string]variant.Outcome{
			"broker-outage":  variant.GaveUp,
			"outage-backlog": variant.GaveUp,
			"stall-release":  variant.GaveUp, // the broker is down for a minute
			// Replayed before its cause is fixed, a refused message spends
			// its ten attempts in ten seconds and is a dead letter again.
			"rejected": variant.Stuck,
			// One timed-out send, tried again after a second where the
			// policy owes it two: the backoff was not kept.
			"publish-timeout-stored":  variant.Storm,
			"publish-timeout-dropped": variant.Storm,
		},
		func(c *outbox.Config) {
			// MISTAKE: every delay one second, however often the send failed.
			c.BackoffBase, c.BackoffCap, c.PauseCap = time.Second, time.Second, time.Second
		})
}
