package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"outboxlab/lang"
)

// TestEveryFaultRowHasOneEntry: every fault row of the matrix is declared
// once, in the FaultSpec of a kind it installs, with a column of its own
// and its texts in both languages; FaultRows gives them in the order of
// their columns.
func TestEveryFaultRowHasOneEntry(t *testing.T) {
	for _, p := range faultRowProblems(faultSpecs) {
		t.Error(p)
	}
	var ids []string
	for _, p := range FaultRows() {
		ids = append(ids, p.ID)
	}
	// The matrix's fault rows in their order: every output and golden
	// shows them so. A row added goes where its column puts it, here too.
	want := []string{"broker-outage", "outage-backlog", "publish-timeout-stored", "publish-timeout-dropped",
		"duplicate-delivery", "reorder", "poison", "corrupt-once", "unknown-contract", "wrong-currency", "rejected",
		"stall", "stall-outage", "stall-release", "mark-conflict", "failure-conflict",
		"relay-restart", "recover-conflict", "relay-lost", "slow-commit", "clock-skew", "outage-restart"}
	if !slices.Equal(ids, want) {
		t.Errorf("FaultRows\n got %q\nwant %q", ids, want)
	}
}

// TestAFaultRowDeclaredTwiceOrAstrayIsFound is the scratch copy the test
// above exists for: the duplicate's row declared again under reorder, a
// row without a column, a row in the column of another, a row declared
// under a kind it does not install, and one without its German. Each is
// named.
func TestAFaultRowDeclaredTwiceOrAstrayIsFound(t *testing.T) {
	with := func(kind FaultKind, change func(s *FaultSpec)) []FaultSpec {
		specs := slices.Clone(faultSpecs)
		for i := range specs {
			if specs[i].Kind == kind {
				specs[i].Rows = slices.Clone(specs[i].Rows)
				change(&specs[i])
			}
		}
		return specs
	}
	dup := duplicate.Rows[0]
	astray := slices.Clone(faultSpecs) // reorder's row moved to poison
	for i := range astray {
		switch astray[i].Kind {
		case FaultReorder:
			astray[i].Rows = nil
		case FaultPoison:
			astray[i].Rows = append(slices.Clone(astray[i].Rows), reorder.Rows[0])
		}
	}
	for _, c := range []struct {
		name  string
		specs []FaultSpec
		want  string
	}{
		{"a row declared twice", with(FaultReorder, func(s *FaultSpec) { s.Rows = append(s.Rows, FaultRow{Column: 65, Point: dup.Point}) }),
			"duplicate-delivery: declared twice, under duplicate-delivery and reorder"},
		{"a row without a column", with(FaultReorder, func(s *FaultSpec) { s.Rows[0].Column = 0 }),
			"reorder: no Column"},
		{"a row in another's column", with(FaultReorder, func(s *FaultSpec) { s.Rows[0].Column = 50 }),
			"reorder: column 50 is duplicate-delivery's too"},
		{"a row under a kind it does not install", astray, "reorder: declared under poison, and installs no fault of that kind"},
		{"a row without its German", with(FaultReorder, func(s *FaultSpec) {
			s.Rows[0].Point = func() Point { p := reorder.Rows[0].Point(); p.Description = lang.Text{EN: p.Description.EN}; return p }
		}), "reorder: its row says nothing in German"},
	} {
		if got := faultRowProblems(c.specs); len(got) != 1 || !strings.Contains(got[0], c.want) {
			t.Errorf("%s: got %q, want one problem: %s", c.name, got, c.want)
		}
	}
}

// faultRowProblems returns what is wrong with the fault rows specs
// declare.
func faultRowProblems(specs []FaultSpec) []string {
	var out []string
	declared := map[string]FaultKind{}
	columns := map[int]string{}
	for _, s := range specs {
		for _, r := range s.Rows {
			p := r.Point()
			if k, ok := declared[p.ID]; ok {
				out = append(out, fmt.Sprintf("%s: declared twice, under %s and %s: one row, one entry", p.ID, k, s.Kind))
				continue
			}
			declared[p.ID] = s.Kind
			switch other, taken := columns[r.Column]; {
			case r.Column <= 0:
				out = append(out, fmt.Sprintf("%s: no Column: say where it goes among the matrix's fault rows (FaultRow.Column)", p.ID))
			case taken:
				out = append(out, fmt.Sprintf("%s: column %d is %s's too: each row has a column of its own", p.ID, r.Column, other))
			default:
				columns[r.Column] = p.ID
			}
			if p.Kind != KindFault {
				out = append(out, fmt.Sprintf("%s: a fault row of kind %q, want %q", p.ID, p.Kind, KindFault))
			}
			if !slices.ContainsFunc(p.Faults, func(f Fault) bool { return f.Kind == s.Kind }) {
				out = append(out, fmt.Sprintf("%s: declared under %s, and installs no fault of that kind: declare it with the kind it is about", p.ID, s.Kind))
			}
			if p.Description.EN == "" {
				out = append(out, fmt.Sprintf("%s: its row says nothing in English", p.ID))
			}
			if p.Description.DE == "" {
				out = append(out, fmt.Sprintf("%s: its row says nothing in German", p.ID))
			}
		}
	}
	return out
}
