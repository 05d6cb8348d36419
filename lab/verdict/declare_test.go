package verdict_test

import (
	"strings"
	"testing"

	"outboxlab/lab/verdict"
	"outboxlab/variant"
)

// TestAnOutcomeDeclaredAtNoRowIsAnError: a learner who declares an outcome
// at a point the matrix does not have ("relay.after-sent" for
// relay.after-send) declared nothing where they meant it, and, the
// declaration being no OK, the variant counted as one that is not
// correct: its grading stopped after the matrix and printed OK (157 runs,
// a variant storing cents in an int32 among them). The grader refuses it,
// naming the point and the rows there are.
func TestAnOutcomeDeclaredAtNoRowIsAnError(t *testing.T) {
	v := variant.Outbox()
	v.Name = "mistyped"
	v.Expect = map[string]variant.Outcome{"relay.after-sent": variant.Stuck, "relay.after-send": variant.OK}
	_, err := verdict.Grade(v, verdict.Options{Depth: verdict.Quick})
	if err == nil || !strings.Contains(err.Error(), "declares an outcome at relay.after-sent, which is no row of the matrix (its rows: service.before-commit,") {
		t.Errorf("err = %v, want the point named and the rows listed", err)
	}
}
