package scenarios

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/sim"
)

// TestEachCrashPointHasOneEntry: every crash row of the matrix is declared
// in one entry of the registry (its boundary's), with its texts in both
// languages, and every crash point the catalogue's stories and rows name
// (a crash, a stall at a point) is a point of a boundary with an entry.
func TestEachCrashPointHasOneEntry(t *testing.T) {
	for _, p := range crashRowProblems(boundaries, namedPoints(t)) {
		t.Error(p)
	}
}

// TestACrashPointDeclaredTwiceOrWithoutEntryIsFound is the scratch copy
// the test above exists for: the relay's send with a second entry that
// declares relay.after-send's row again, a row without its German, and a
// story's crash at a point no entry has. Each is named.
func TestACrashPointDeclaredTwiceOrWithoutEntryIsFound(t *testing.T) {
	twice := append(slices.Clone(boundaries), BoundarySpec{Boundary: outbox.BoundarySend,
		AfterRow: &CrashRow{Text: lang.Text{EN: "again", DE: "noch einmal"}}})
	noGerman := slices.Clone(boundaries)
	for i, s := range noGerman {
		if s.Boundary == outbox.BoundaryClaim {
			noGerman[i].AfterRow = &CrashRow{Text: lang.Text{EN: s.AfterRow.Text.EN}}
		}
	}
	for _, c := range []struct {
		name  string
		specs []BoundarySpec
		named []string
		want  string
	}{
		{"a row declared twice", twice, nil, "relay.after-send: declared twice"},
		{"a row without its German", noGerman, nil, "relay.after-claim: its row says nothing in German"},
		{"a crash at a point no entry has", boundaries, []string{"story x: relay.after-sent"}, "story x: relay.after-sent is no point of a boundary in the registry"},
	} {
		if got := crashRowProblems(c.specs, c.named); len(got) != 1 || !strings.Contains(got[0], c.want) {
			t.Errorf("%s: got %q, want one problem: %s", c.name, got, c.want)
		}
	}
}

// crashRowProblems returns what is wrong with the crash rows specs
// declare, and with named: "WHERE: POINT", crash points named elsewhere.
func crashRowProblems(specs []BoundarySpec, named []string) []string {
	var out []string
	points := map[string]bool{}
	rows := map[string]bool{}
	for _, s := range specs {
		points[s.Before()], points[s.After()] = true, true
		for _, p := range s.rows() {
			if rows[p.ID] {
				out = append(out, fmt.Sprintf("%s: declared twice: one crash point, one entry (scenarios/boundaries.go)", p.ID))
			}
			rows[p.ID] = true
			if p.Description.EN == "" {
				out = append(out, fmt.Sprintf("%s: its row says nothing in English", p.ID))
			}
			if p.Description.DE == "" {
				out = append(out, fmt.Sprintf("%s: its row says nothing in German", p.ID))
			}
		}
	}
	for _, n := range named {
		where, point, _ := strings.Cut(n, ": ")
		if !points[point] {
			out = append(out, fmt.Sprintf("%s: %s is no point of a boundary in the registry (scenarios/boundaries.go)", where, point))
		}
	}
	return out
}

// namedPoints returns every crash point the catalogue names outside the
// registry: the crashes of its stories and the points of its stories'
// and rows' faults, as "WHERE: POINT".
func namedPoints(t *testing.T) []string {
	t.Helper()
	var out []string
	faults := func(where string, fs []sim.Fault) {
		for _, f := range fs {
			if f.Kind == sim.FaultStall {
				out = append(out, where+": "+f.Point)
			}
		}
	}
	for _, p := range Points() {
		faults("row "+p.ID, p.Faults)
	}
	for _, sc := range Catalogue() {
		v, err := FindVariant(cmp.Or(sc.Variant, "outbox"))
		if err != nil {
			t.Fatal(err)
		}
		cfg := sc.Configure(v, MatrixSeed)
		for _, c := range cfg.Crashes {
			out = append(out, "story "+sc.Name+": "+c.Point)
		}
		faults("story "+sc.Name, cfg.Faults)
	}
	return out
}

// TestEveryRowOfTheMatrixIsDeclaredOnce: the crash rows (the boundary
// registry's) and the fault rows (the fault kinds', sim.FaultRows) are
// the matrix's rows, no id twice among them, and every row the failure
// sweep runs under (Matrix's FailureRows) is one of them. Its scratch
// copies, a fault row named as a crash point and a failure row that no
// entry declares, are named.
func TestEveryRowOfTheMatrixIsDeclaredOnce(t *testing.T) {
	for _, p := range matrixRowProblems(Points(), Matrix().FailureRows) {
		t.Error(p)
	}
	clash := append(Points(), sim.Point{ID: "relay.after-send", Kind: sim.KindFault})
	if got := matrixRowProblems(clash, nil); len(got) != 1 || !strings.Contains(got[0], "relay.after-send: two rows of the matrix") {
		t.Errorf("a fault row named as a crash point: got %q, want it named", got)
	}
	if got := matrixRowProblems(Points(), []string{"poison", "stall-forever"}); len(got) != 1 || !strings.Contains(got[0], "stall-forever: the failure sweep runs under it, and no entry declares it") {
		t.Errorf("a failure row without an entry: got %q, want it named", got)
	}
}

// matrixRowProblems returns the ids points hold twice, and the
// failure rows that are none of them.
func matrixRowProblems(points []sim.Point, failureRows []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range points {
		if seen[p.ID] {
			out = append(out, fmt.Sprintf("%s: two rows of the matrix: one id, one entry (a crash point's in scenarios/boundaries.go, a fault row's in its kind's sim.FaultSpec)", p.ID))
		}
		seen[p.ID] = true
	}
	for _, r := range failureRows {
		if !seen[r] {
			out = append(out, fmt.Sprintf("%s: the failure sweep runs under it, and no entry declares it", r))
		}
	}
	return out
}
