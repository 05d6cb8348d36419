package mistakes_test

import (
	"strings"
	"testing"

	"outboxlab/internal/longtest"
	"outboxlab/lab/explore"
	"outboxlab/mistakes"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// TestTheLabCatchesSlipsItDoesNotShip: more ways a learner gets the
// pattern wrong, each the reference with one change (mistakes.Slips),
// fail the matrix row that shows it, with a line that says what went
// wrong. The reference passes every row (TestCrashMatrix).
func TestTheLabCatchesSlipsItDoesNotShip(t *testing.T) {
	cases := []struct {
		slip, point string
		want        variant.Outcome
		detail      string
	}{
		// An id recorded at parking time makes the parked event look
		// applied: when its turn comes the inbox refuses it.
		{"park-and-record", "reorder", variant.GaveUp, "dead-lettered in billing (store billing: insert inbox/"},
		// Only the next parked event is applied after a gap closes: the
		// one behind it waits for ever.
		{"drain-one", "poison", variant.Lost, "LOST o-1#3: committed, but billing never applied it"},
		// A replayed dead letter is older than the retention period when
		// it is finally sent: the cleanup after the replay deletes it at
		// once. Passed before that cleanup was part of a run.
		{"cleanup-by-creation", "rejected", variant.Unsafe, "deleted 2h0m0s after it was SENT: retention keeps a SENT message 168h0m0s, as the evidence"},
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

// TestARaceLostOnTheInboxKeyIsNoError: in billing-race two billing
// instances commit the same message at once; the reference's loser takes
// the unique key's refusal for a duplicate (no error, one invoice). A
// billing that returns the refusal as an error stops over a race it lost:
// the run names the error (mistakes.Slips: duplicate-key-is-an-error).
func TestARaceLostOnTheInboxKeyIsNoError(t *testing.T) {
	sc, err := scenarios.FindScenario("billing-race")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := sim.Run(sc.Configure(variant.Outbox(), sc.Seed))
	if err != nil {
		t.Fatal(err)
	}
	raced := false
	for _, e := range ref.Trace {
		raced = raced || (e.Action == "consumer.commit" && strings.Contains(e.Result.EN, "duplicate key"))
	}
	if !raced || ref.Outcome != variant.OK || len(ref.Unhandled) > 0 {
		t.Fatalf("the reference: raced %v, %s, unhandled %v: the story no longer races, or the loser errs", raced, ref.Outcome, ref.Unhandled)
	}
	strict, err := sim.Run(sc.Configure(mistakes.Slips["duplicate-key-is-an-error"](), sc.Seed))
	if err != nil {
		t.Fatal(err)
	}
	if len(strict.Unhandled) == 0 || !strings.Contains(strict.Unhandled[0], "duplicate key") {
		t.Fatalf("a billing that returns the refusal: unhandled %v, want the duplicate key named", strict.Unhandled)
	}
}

// TestAnUnfencedDeleteOnSendIsCaught: the checker lets a relay that
// deletes on send (outbox-delete-on-send) delete late where its own claim
// is the row's last write (frozen between its lease check and its commit,
// nobody took the row over: the store would have refused the commit).
// A relay that deletes without checking that it still holds the lease
// deletes what another relay took over after it froze: exploration finds
// that, UNSAFE (no matrix row freezes a relay between its send and its
// mark's read: the matrix has it OK everywhere).
func TestAnUnfencedDeleteOnSendIsCaught(t *testing.T) {
	longtest.Only(t, "long_caught", "TestCrashMatrix's mistakes")
	f, err := explore.Explore(mistakes.Slips["delete-on-send-unfenced"](), 1000, 1, explore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f == nil || f.Result.Outcome != variant.Unsafe {
		t.Fatalf("delete-on-send-unfenced: %+v in 1000 schedules at seed 1, want UNSAFE", f)
	}
	for _, v := range f.Result.Violations {
		if strings.Contains(v.String(), "deleted while IN_FLIGHT") {
			return
		}
	}
	t.Errorf("no violation says a row was deleted while IN_FLIGHT: %v", f.Result.Violations)
}
