package verdict

import (
	"slices"
	"testing"

	"outboxlab/variant/varianttest"
)

// TestFirstRowsRunFirst: a broken frame red in several cells, graded to
// its first red with Options.First naming one of its later red rows,
// ends at that row, and its cells are in the order run; without First it
// ends at its first red row in the matrix's order. A grader that ignored
// First, or kept the matrix's order for Verdict.Cells, fails here.
func TestFirstRowsRunFirst(t *testing.T) {
	for _, slip := range varianttest.Slips() {
		v := slip.Variant(1)
		all, err := Grade(v, Options{Depth: Quick, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		var red []string
		for _, f := range all.Findings {
			if !slices.Contains(red, f.Point) {
				red = append(red, f.Point)
			}
		}
		if len(red) < 2 {
			continue
		}
		last := red[len(red)-1]
		got, err := Grade(v, Options{Depth: Quick, Stop: StopAtFirstRed, Workers: 1, First: []string{"no-such-row", last}})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Findings) == 0 || got.Findings[0].Point != last || len(got.Cells) != 1 || got.Cells[0].Point.ID != last {
			t.Fatalf("%s with First [%s]: first finding %v, %d cells run; want %s alone", v.Name, last, got.Findings, len(got.Cells), last)
		}
		plain, err := Grade(v, Options{Depth: Quick, Stop: StopAtFirstRed, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if plain.Findings[0].Point != red[0] {
			t.Fatalf("%s without First: first finding at %s, want %s", v.Name, plain.Findings[0].Point, red[0])
		}
		return
	}
	t.Fatal("no broken frame is red in two rows: the test tests nothing")
}
