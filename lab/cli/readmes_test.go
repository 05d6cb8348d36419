package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// claimsTable returns the rows of a README's claims table (between
// "<!-- table of: labrun claims" and "<!-- end of table -->") as their
// chapter and command cells: what the row claims to be run by.
func claimsTable(t *testing.T, readme string) [][2]string {
	t.Helper()
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- table of: labrun claims")
	table, _, closed := strings.Cut(rest, "<!-- end of table -->")
	if !ok || !closed {
		t.Fatalf("%s: no claims table between its markers", readme)
	}
	var rows [][2]string
	for _, line := range strings.Split(table, "\n")[1:] {
		cells := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) < 4 || strings.HasPrefix(line, "|---") {
			continue
		}
		rows = append(rows, [2]string{strings.TrimPrefix(cells[0], "| "), cells[2]})
	}
	return rows[1:] // the header
}

// TestBothREADMEsClaimTheSameRuns: README.de.md's claims table has every
// row of README.md's, with the same chapter and the same command, in the
// same order; each README's table is what labrun prints
// (TestTheREADMEsShowWhatLabrunPrints), this holds the two to each other.
func TestBothREADMEsClaimTheSameRuns(t *testing.T) {
	en, de := claimsTable(t, "../../README.md"), claimsTable(t, "../../README.de.md")
	if len(en) < 100 {
		t.Fatalf("README.md: %d claims rows; the parse is broken", len(en))
	}
	if diff := cmp.Diff(en, de); diff != "" {
		t.Errorf("the claims tables differ (-README.md +README.de.md):\n%s", diff)
	}
}
