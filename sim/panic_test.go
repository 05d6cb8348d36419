package sim_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// panicky is the reference relay that panics in its first step after a
// (re)start, or, with inNextWake, in NextWake.
type panicky struct {
	variant.Relay
	stepped, inNextWake bool
}

func (r *panicky) Step() (bool, error) {
	if !r.stepped && !r.inNextWake {
		r.stepped = true
		var batch []int
		_ = batch[3] // index out of range, as a learner's slip makes it
	}
	return r.Relay.Step()
}

func (r *panicky) NextWake() (time.Time, bool) {
	if r.inNextWake {
		panic("NextWake: not implemented")
	}
	return r.Relay.NextWake()
}

func panickyRelay(inNextWake bool) variant.Variant {
	v := variant.Outbox()
	v.Name = "panicky-relay"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return &panicky{Relay: variant.AdaptRelay(r), inNextWake: inNextWake}, nil
	}
	return v
}

// TestAPanicInAStepKillsTheProcess: a relay whose step panics dies of it,
// as it would in production, and restarts; the run goes on, and the
// panic is a misstep of the run, with the process and the value.
func TestAPanicInAStepKillsTheProcess(t *testing.T) {
	res, err := sim.Run(scenarios.Matrix().Config(panickyRelay(false)))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Panics) == 0 || !strings.HasPrefix(res.Panics[0], "relay-1 panicked in its step: runtime error: index out of range [3]") {
		t.Fatalf("panics %q, want relay-1's step's", res.Panics)
	}
	if !res.Missteps.Any() || res.Outcome == variant.OK && len(res.Panics) == 0 {
		t.Fatalf("missteps %+v", res.Missteps)
	}
	p, err := scenarios.FindPoint("broker-outage")
	if err != nil {
		t.Fatal(err)
	}
	cell, err := scenarios.Matrix().RunCell(panickyRelay(false), p)
	if err != nil || cell.Matches() || len(cell.Panics) == 0 || cell.MisstepRun == nil {
		t.Fatalf("cell: %v; %s, panics %q, run %+v: want a cell that disagrees, with the run that panicked", err, cell.Outcome, cell.Panics, cell.MisstepRun)
	}
}

// TestAPanicOutsideAnActivityIsAnError: a panic where no process could
// die of it (the simulator asks NextWake between steps) ends the run with
// an error that says so, instead of taking the caller down.
func TestAPanicOutsideAnActivityIsAnError(t *testing.T) {
	_, err := sim.Run(scenarios.Matrix().Config(panickyRelay(true)))
	if !errors.Is(err, sim.ErrPanicked) || !strings.Contains(err.Error(), "NextWake: not implemented") {
		t.Fatalf("err %v, want ErrPanicked with the value", err)
	}
	// The simulator is fine afterwards: the next run is the reference's.
	res, err := sim.Run(scenarios.Matrix().Config(variant.Outbox()))
	if err != nil || res.Outcome != variant.OK || res.Missteps.Any() {
		t.Fatalf("the reference after a panic: %v, %s, %+v", err, res.Outcome, res.Missteps)
	}
}
