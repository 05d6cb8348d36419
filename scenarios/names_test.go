package scenarios

import (
	"fmt"
	"strings"
	"testing"

	"outboxlab/sim"
)

// TestAStoryNamedAsARowIsTheRowsRun: every failure names the command that
// replays it, and a matrix cell's replay is `labrun scenario ROW`, which
// FindScenario resolves to a story first. A story that has a row's name
// must therefore be the row's very run, for every variant; otherwise the
// cell's replay plays another run (the stories publish-timeout-stored,
// publish-timeout-dropped and duplicate-delivery played o-1 alone where
// their rows play o-1, o-2 and o-3: a cell LATE at the row replayed as
// STUCK). They are answer-lost, request-lost and delivered-twice now.
func TestAStoryNamedAsARowIsTheRowsRun(t *testing.T) {
	files, err := stories()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range files {
		if err := sameRunAsRow(s); err != nil {
			t.Error(err)
		}
	}
}

// TestAStoryThatIsNotItsRowsRunIsFound is the broken thing
// TestAStoryNamedAsARowIsTheRowsRun guards against: the old story
// publish-timeout-stored, the row's fault on the one-order workload.
func TestAStoryThatIsNotItsRowsRunIsFound(t *testing.T) {
	f, err := ParseFile("stories/080-publish-timeout-stored.txt", strings.Join([]string{
		"summary the broker stores o-1's first message, but the relay's publish times out",
		"summary-de der Broker speichert die erste Nachricht von o-1, aber das Senden läuft in einen Timeout",
		"point publish-timeout-stored",
		"workload one-order",
		"fault publish-timeout-stored o-1#1",
	}, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = sameRunAsRow(f.Scenario)
	if err == nil || !strings.Contains(err.Error(), "publish-timeout-stored") {
		t.Errorf("a story on the one-order workload named as the row: %v, want it named as another run", err)
	}
}

// sameRunAsRow returns an error if s has the name of a matrix row and
// plays another run than the row's, for some variant at the matrix seed.
func sameRunAsRow(s Scenario) error {
	p, err := FindPoint(s.Name)
	if err != nil {
		return nil // no row of that name
	}
	for _, v := range Variants() {
		story, row := s.Configure(v, MatrixSeed), pointRun(p, 1)(v, MatrixSeed)
		story.Trace, row.Trace = true, true
		a, errA := sim.Run(story)
		b, errB := sim.Run(row)
		if fmt.Sprint(errA) != fmt.Sprint(errB) {
			return fmt.Errorf("story %s with %s: %v, the row's run: %v", s.Name, v.Name, errA, errB)
		}
		if got, want := fmt.Sprint(a.Outcome, a.Trace), fmt.Sprint(b.Outcome, b.Trace); got != want {
			return fmt.Errorf("story %s plays another run than the row %s with %s (%s against %s, %d events against %d): rename the story or make it the row's run",
				s.Name, p.ID, v.Name, a.Outcome, b.Outcome, len(a.Trace), len(b.Trace))
		}
	}
	return nil
}
