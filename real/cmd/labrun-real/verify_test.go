package main

import (
	"testing"

	"outboxlab/real/verify"
)

// TestAReplayPlaysTheRoundOnceWithItsTimingStaged: the replay of a
// failing round keeps the run's flags but its rounds, --repeat and
// --timeline, names the round, and stages the round's own late request
// as a fault.
func TestAReplayPlaysTheRoundOnceWithItsTimingStaged(t *testing.T) {
	args := []string{"--relay", "python3 relay.py", "--round", "stall", "--repeat=5", "--timeline", "--seed", "3", "--repeat", "2", "--round=kill-on-arrival"}
	res := verify.Result{Round: verify.Round{Name: "kill-after-answer"}}
	if got, want := replayCommand(args, res), "go run ./cmd/labrun-real verify --relay 'python3 relay.py' --seed 3 --round kill-after-answer"; got != want {
		t.Errorf("replay\n got %s\nwant %s", got, want)
	}
	res.Late = &verify.Late{Produce: &verify.Produce{N: 20}}
	if got, want := replayCommand(args, res), "go run ./cmd/labrun-real verify --relay 'python3 relay.py' --seed 3 --round kill-after-answer --fault stall@20"; got != want {
		t.Errorf("replay of a late request\n got %s\nwant %s", got, want)
	}
}
