package sendfirst

import (
	"testing"

	"outboxlab/check"
	"outboxlab/grade"
)

var hints = map[check.Outcome]string{
	check.Lost: "a message is SENT in the outbox and billing never got it: the mark came before the broker's confirmation. " +
		"Send first, mark after, one message at a time.",
	check.Stuck: "a message is neither SENT nor DEAD_LETTER: a claim was never marked or given back. " +
		"Record a failed send (MarkFailed) and release the rest of the batch.",
	check.Storm: "the broker was asked far too often: a failed send needs a backoff before its next attempt (Config.Backoff).",
	check.Unsafe: "a message was marked by a relay that no longer held its lease: MarkSent checks the lease; " +
		"write only what it accepts.",
}

func TestExercise(t *testing.T) { grade.Exercise(t, Variant(), hints) }
