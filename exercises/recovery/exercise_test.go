package recovery

import (
	"testing"

	"outboxlab/lab/grade"
)

func TestExercise(t *testing.T) { grade.Exercise(t, Variant(), Grading) }
