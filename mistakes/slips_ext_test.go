package mistakes_test

import (
	"strings"
	"testing"

	"outboxlab/lab/check"
	"outboxlab/mistakes"
	"outboxlab/scenarios"
)

// TestTheLabCatchesSlipsItDoesNotShip: more ways a learner gets the
// pattern wrong, each the reference with one change (mistakes.Slips),
// fail the matrix row that shows it, with a line that says what went
// wrong. The reference passes every row (TestCrashMatrix).
func TestTheLabCatchesSlipsItDoesNotShip(t *testing.T) {
	cases := []struct {
		slip, point string
		want        check.Outcome
		detail      string
	}{
		// An id recorded at parking time makes the parked event look
		// applied: when its turn comes the inbox refuses it.
		{"park-and-record", "reorder", check.GaveUp, "dead-lettered in billing (store billing: insert inbox/"},
		// Only the next parked event is applied after a gap closes: the
		// one behind it waits for ever.
		{"drain-one", "poison", check.Lost, "LOST o-1#3: committed, but billing never applied it"},
		// A replayed dead letter is older than the retention period when
		// it is finally sent: the cleanup after the replay deletes it at
		// once. Passed before that cleanup was part of a run.
		{"cleanup-by-creation", "rejected", check.Unsafe, "deleted 2h0m0s after it was SENT: retention keeps a SENT message 168h0m0s, as the evidence"},
	}
	m := scenarios.Matrix()
	for _, c := range cases {
		t.Run(c.slip, func(t *testing.T) {
			p, err := scenarios.FindPoint(c.point)
			if err != nil {
				t.Fatal(err)
			}
			cell, err := m.RunCell(mistakes.Slips[c.slip](), p)
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, v := range cell.Violations {
				lines = append(lines, v.String())
			}
			if cell.Matches() || cell.Outcome != c.want {
				t.Errorf("%s at %s: %s (declared OK everywhere), want %s\n%s", c.slip, c.point, cell.Outcome, c.want, strings.Join(lines, "\n"))
			}
			if !strings.Contains(strings.Join(lines, "\n"), c.detail) {
				t.Errorf("%s at %s: no violation says %q:\n%s", c.slip, c.point, c.detail, strings.Join(lines, "\n"))
			}
		})
	}
}
