package verdict

import (
	"testing"

	"outboxlab/variant"

	"github.com/google/go-cmp/cmp"
)

// TestGroupByKeepsTheOrderFirstMet: the groups come in the order each key
// was first met and keep their items' order, which every door prints (the
// first finding of a cause is the one to replay).
func TestGroupByKeepsTheOrderFirstMet(t *testing.T) {
	got := GroupBy([]string{"b1", "a1", "b2", "c1", "a2"}, func(s string) byte { return s[0] })
	want := [][]string{{"b1", "b2"}, {"a1", "a2"}, {"c1"}}
	if !cmp.Equal(got, want) {
		t.Errorf("GroupBy: %v, want %v", got, want)
	}
}

// TestGroupsSeparateOutcomesOfOneCauseOnly: an outcome is a cause of its
// own; the other causes group whatever the run's outcome.
func TestGroupsSeparateOutcomesOfOneCauseOnly(t *testing.T) {
	v := Verdict{Findings: []Finding{
		{Cause: CauseOutcome, Outcome: variant.Lost, Point: "a"},
		{Cause: CausePanic, Outcome: variant.Lost, Point: "b"},
		{Cause: CauseOutcome, Outcome: variant.Duplicate, Point: "c"},
		{Cause: CausePanic, Outcome: variant.OK, Point: "d"},
		{Cause: CauseOutcome, Outcome: variant.Lost, Point: "e"},
	}}
	var got []string
	for _, g := range v.Groups() {
		s := g.Cause.String() + "/" + g.Outcome.String() + ":"
		for _, f := range g.Findings {
			s += f.Point
		}
		got = append(got, s)
	}
	want := []string{"outcome/LOST:ae", "panic/n/a:bd", "outcome/DUPLICATE:c"}
	if !cmp.Equal(got, want) {
		t.Errorf("Groups: %v, want %v", got, want)
	}
}
