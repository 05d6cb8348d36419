package cli

import (
	"strings"
	"testing"
)

// TestTheTwoPhaseCommitsOwnPointsAreCrashedAt: the coordinator's decision
// and its word to the broker are reached only after the service died
// between the two phases; the double-crash sweep crashes there as these
// commands do. Each crash fires (a planned crash that never fires exits
// with an error) and the run is OK: a coordinator that dies after
// committing its decision to abort reads it again when it comes back.
// (The service commits an order's earlier event in doubt itself before
// it prepares the next: the coordinator resolves o-3's placement, the
// fourth commit, which no command of o-3 follows.)
func TestTheTwoPhaseCommitsOwnPointsAreCrashedAt(t *testing.T) {
	for _, point := range []string{
		"service.after-prepare+coordinator.before-decide",
		"service.after-prepare+coordinator.after-decide",
		"service.after-prepare+coordinator.before-resolve",
		"service.after-prepare+coordinator.after-resolve",
		"service.after-commit@4+coordinator.after-resolve",
	} {
		code, stdout, stderr := runLabrun("scenario", point, "--variant", "two-phase-commit")
		if code != 0 || !strings.Contains(stdout, "Outcome: OK (expected OK)") {
			t.Errorf("labrun scenario %s --variant two-phase-commit: exit %d\n%s%s", point, code, lastLines(stdout, 3), stderr)
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n") + "\n"
}
