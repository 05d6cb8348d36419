package sqlitelab

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// TestAStallWithinTheLeaseTakesNothingOver: the stall row's situation is
// read from the commit log, not assumed. A relay frozen for less than its
// lease keeps its claim (nothing taken over, and the reference's cell would
// fail for want of it: tried); frozen past it, the other relay takes it.
func TestAStallWithinTheLeaseTakesNothingOver(t *testing.T) {
	exe, args := program(t)
	row, err := FindRow("stall", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		freeze time.Duration
		taken  bool
	}{{100 * time.Millisecond, false}, {row.Stalls[0].For, true}} {
		v, _ := FindVariant("outbox")
		cfg, _ := row.config(v, 2)
		cfg.Stalls = []Stall{row.Stalls[0]}
		cfg.Stalls[0].For = tc.freeze
		cfg.Program, cfg.Args = exe, args
		res, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		taken := slices.Contains(res.Situations, sim.LeaseTakenOver)
		if res.Stalls != 1 || taken != tc.taken || res.Outcome != variant.OK {
			t.Errorf("frozen %s of a %s lease: %d stall(s), lease taken over %v (want %v), %s\n%s", tc.freeze, cfg.Lease, res.Stalls, taken, tc.taken, res.Outcome, timeline(res))
		}
	}
	if (Cell{Outcome: variant.OK, Want: variant.OK, Missing: []sim.Situation{sim.LeaseTakenOver}}).Agrees() {
		t.Error("a cell that missed its row's situation agrees")
	}
}

// TestTheOtherCrashPointsAreWhatTheSimulatorReaches keeps the real
// matrix's crash points equal to every point the simulator's runs of the
// real parts' variants reach (with one relay and two), so that a point the
// simulator gains is a row here too.
func TestTheOtherCrashPointsAreWhatTheSimulatorReaches(t *testing.T) {
	reached := map[string]bool{}
	m := scenarios.Matrix()
	for _, v := range variants {
		simV, err := scenarios.FindVariant(v.simName())
		if err != nil {
			t.Fatal(err)
		}
		for _, relays := range v.relays([]int{1, 2}) {
			cfg := m.Config(simV)
			cfg.Relays = relays
			res, err := sim.Run(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for p := range res.Reached {
				reached[p] = true
			}
		}
	}
	var missing []string
	for _, p := range slices.Sorted(maps.Keys(reached)) {
		if !slices.Contains(CrashPoints(), p) {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		t.Errorf("the simulator reaches crash points the real matrix does not run: %s", strings.Join(missing, ", "))
	}
	for _, p := range otherCrashPoints {
		if !reached[p] {
			t.Errorf("the real matrix runs %s, which no simulated run of its variants reaches", p)
		}
	}
}

// TestThreeRelays runs the reference with three relay processes, killed
// after a send, and the matrix's cell with up to three relays, whose
// simulated side runs three relays too.
func TestThreeRelays(t *testing.T) {
	exe, args := program(t)
	res, err := Run(Config{Variant: "outbox", Relays: 3, Crash: "relay.after-send", Occurrence: 2, Program: exe, Args: args})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != variant.OK || !res.Fired || !strings.Contains(timeline(res), "relay-3 ") {
		t.Fatalf("three relays: %s, fired %v\n%s", res.Outcome, res.Fired, timeline(res))
	}
	cells, err := Matrix(MatrixConfig{Variants: []string{"outbox", "mark-before-send"}, Points: []string{"relay.after-mark"}, MaxRelays: 3, Program: exe, Args: args})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		if !c.Agrees() {
			t.Errorf("%s", Explain(c))
		}
	}
}
