package recovery

import (
	"testing"

	"outboxlab/exercises/internal/startertest"
)

// TestStarterOutput keeps what a learner reads when the shipped starter is
// graded (with OUTBOXLAB_STARTERS=1).
func TestStarterOutput(t *testing.T) { startertest.Check(t, Variant(), Grading) }
