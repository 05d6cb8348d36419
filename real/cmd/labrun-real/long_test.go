package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"outboxlab/real/internal/realtest"
)

// The long tests of labrun-real. See package realtest.

// TestAFailingRoundPrintsACommandThatReplaysIt builds mark-before-send (a
// relay that marks before it sends), lets kill-on-arrival find it LOST,
// and runs the replay command the output names: the same round, the same
// verdict.
func TestAFailingRoundPrintsACommandThatReplaysIt(t *testing.T) {
	realtest.Long(t) // builds a relay and plays three rounds
	relay := filepath.Join(t.TempDir(), "mark-before-send")
	if out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", relay, "../../verify/relays/mark-before-send").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	code, stdout, stderr := verifyOn(t, "--relay", relay, "--round", "kill-on-arrival", "--round", "kill-before-answer", "--seed", "3")
	want := "replay: go run ./cmd/labrun-real verify --relay " + relay + " --seed 3 --round kill-on-arrival"
	if code != 1 || !strings.Contains(stdout, "LOST") || !strings.Contains(stdout, want) {
		t.Fatalf("exit %d, want 1 with LOST and %q\n%s\n%s", code, want, stdout, stderr)
	}
	replay := strings.Fields(strings.TrimPrefix(want, "replay: go run ./cmd/labrun-real "))
	code, again, stderr := verifyOn(t, replay[1:]...)
	if code != 1 || !strings.Contains(again, "round kill-on-arrival") || strings.Contains(again, "round kill-before-answer") || !strings.Contains(again, ": LOST") {
		t.Fatalf("the replay: exit %d, want 1, kill-on-arrival alone, LOST\n%s\n%s", code, again, stderr)
	}
}
