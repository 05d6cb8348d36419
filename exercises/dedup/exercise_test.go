package dedup

import (
	"testing"

	"outboxlab/check"
	"outboxlab/grade"
)

var hints = map[check.Outcome]string{
	check.Duplicate: "a message was billed twice: the crash came after the bill's commit and before the id's, " +
		"and the redelivery did not find the id. Record it in the bill's transaction.",
	check.Lost: "a change was never billed: was the id recorded although the bill was not?",
}

func TestExercise(t *testing.T) { grade.Exercise(t, Variant(), hints) }
