package sendfirst

import (
	"testing"

	"outboxlab/lab/grade"
)

func TestExercise(t *testing.T) { grade.Exercise(t, Variant(), grade.Options{Hints: Hints}) }
