package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"outboxlab/internal/backlog"
)

// TestProgressIsQuietAtFirstAndThrottled: nothing in the first second,
// then at most one line each 200 ms, each overwriting the last, and the
// final state always, ending the line.
func TestProgressIsQuietAtFirstAndThrottled(t *testing.T) {
	var out bytes.Buffer
	start := time.Unix(0, 0)
	now := start
	p := &progress{w: &out, now: func() time.Time { return now }, start: start}
	step := func(d time.Duration, finished bool, line string) {
		now = now.Add(d)
		p.update(finished, func() string { return line })
	}
	step(500*time.Millisecond, false, "a")      // too early
	step(600*time.Millisecond, false, "long b") // shown
	step(100*time.Millisecond, false, "c")      // throttled
	step(150*time.Millisecond, false, "d")      // shown, over the longer b
	step(10*time.Millisecond, true, "finished") // always shown
	if got, want := out.String(), "\rlong b\rd     \rfinished\n"; got != want {
		t.Errorf("progress wrote %q, want %q", got, want)
	}
}

// TestNoProgressWhenStderrIsNotATerminal: under go test, stderr is a pipe
// or a file.
func TestNoProgressWhenStderrIsNotATerminal(t *testing.T) {
	if p := newProgress(); p != nil {
		t.Skip("stderr is a terminal here")
	}
	if progressLine(10) != nil || simulationProgress(io.Discard, time.Minute) != nil {
		t.Error("a progress callback without a terminal")
	}
}

// TestTheArithmeticComesBeforeTheSimulation: backlog --simulate prints the
// arithmetic before the simulation starts, so that a reader has an answer
// while it runs.
func TestTheArithmeticComesBeforeTheSimulation(t *testing.T) {
	var stdout, stderr bytes.Buffer
	simulate := simulateBacklog
	defer func() { simulateBacklog = simulate }()
	started := false
	simulateBacklog = func(p backlog.Params, progress func(simulated, horizon time.Duration, finished bool)) (backlog.Simulation, error) {
		started = true
		if !strings.Contains(stdout.String(), "Drain at 8/s relay throughput") {
			t.Errorf("the simulation started with %q printed, before the arithmetic", stdout.String())
		}
		return simulate(p, progress)
	}
	if code := run([]string{"backlog", "--rate", "5", "--outage", "1m", "--relay", "8", "--simulate"}, &stdout, &stderr); code != 0 || !started {
		t.Fatalf("exit %d, simulated %v, stderr %q", code, started, stderr.String())
	}
}
