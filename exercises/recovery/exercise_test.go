package recovery

import (
	"testing"

	"outboxlab/grade"
)

func TestExercise(t *testing.T) { grade.Exercise(t, Variant(), Hints) }
