package explore

import (
	"slices"
	"strings"
	"testing"

	"outboxlab/scenarios"
)

// TestExplorationDrawsWhatItAlwaysDrew: exploration draws a crash point
// and a commit-failure boundary by index, so the lists derived from the
// components' boundaries (scenarios.DrawnBoundaries) must be, in their order,
// what every seed and every golden was drawn from. A boundary drawn that
// was not, or one moved, fails here: it would change every schedule.
func TestExplorationDrawsWhatItAlwaysDrew(t *testing.T) {
	var drawn []string
	for _, b := range []string{
		"service.commit", "service.publish", "service.commit-outbox",
		"relay.recover", "relay.claim", "relay.send", "relay.mark", "relay.offset",
		"listener.commit", "listener.ack",
		"consumer.commit", "consumer.ack", "consumer.count-failure", "consumer.record-processed",
	} {
		drawn = append(drawn, pointsOf(b)...)
	}
	if !slices.Equal(CrashPoints, drawn) {
		t.Errorf("CrashPoints\n got %q\nwant %q", CrashPoints, drawn)
	}
	commits := []string{
		"service.commit", "service.commit-outbox",
		"relay.recover", "relay.claim", "relay.mark", "relay.offset",
		"listener.commit",
		"consumer.commit", "consumer.count-failure", "consumer.record-processed",
	}
	if !slices.Equal(scenarios.CommitBoundaries, commits) {
		t.Errorf("scenarios.CommitBoundaries\n got %q\nwant %q", scenarios.CommitBoundaries, commits)
	}
}

// pointsOf returns the two crash points of the boundary "process.effect".
func pointsOf(boundary string) []string {
	process, effect, _ := strings.Cut(boundary, ".")
	return []string{process + ".before-" + effect, process + ".after-" + effect}
}
