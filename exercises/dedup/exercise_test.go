package dedup

import (
	"flag"
	"testing"

	"outboxlab/check"
	"outboxlab/grade"
)

var exercise = flag.Bool("exercise", false, "grade the exercise (the starter fails until it is solved)")

var hints = map[check.Outcome]string{
	check.Duplicate: "a message was billed twice: the crash came after the bill's commit and before the id's, " +
		"and the redelivery did not find the id. Record it in the bill's transaction.",
	check.Lost: "a change was never billed: was the id recorded although the bill was not?",
}

func TestExercise(t *testing.T) {
	if !*exercise {
		t.Skip("grade the exercise with -exercise")
	}
	grade.Grade(t, Variant(), grade.Options{Hints: hints, Flags: "-exercise"})
}
