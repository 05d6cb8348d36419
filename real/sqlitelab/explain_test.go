package sqlitelab

import (
	"fmt"
	"testing"

	"outboxlab/scenarios"
	"outboxlab/sim"
)

// TestTheSimulatorsRunOfARealRunIsItsMatrixCell: the simulator's run
// beside a real run (Explain's, SimTimeline's) is the matrix cell's run
// it stands for, built by the one RunID -> Config of the lab
// (scenarios.Config): a crash with the real run's relays, or a fault
// row with the row's relays; a run at no row is the matrix's workload
// alone.
func TestTheSimulatorsRunOfARealRunIsItsMatrixCell(t *testing.T) {
	v, err := scenarios.FindVariant("mark-before-send")
	if err != nil {
		t.Fatal(err)
	}
	m := scenarios.Matrix()
	crash := m.Config(v)
	crash.Relays, crash.Crashes = 2, []sim.Crash{{Point: "relay.after-mark", Occurrence: 1}}
	stall, err := scenarios.FindPoint(faultRows[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	row := m.Config(v)
	stall.Apply(&row)
	for _, c := range []struct {
		rc   Config
		want sim.Config
	}{
		{Config{Variant: "mark-before-send", Crash: "relay.after-mark", Occurrence: 1, Relays: 2, Seed: 9}, crash},
		{Config{Variant: "mark-before-send", Relays: 3, Stalls: faultRows[0].Stalls}, row},
		{Config{Variant: "mark-before-send", Relays: 1}, m.Config(v)},
	} {
		got, err := simTrace(c.rc)
		if err != nil {
			t.Fatal(err)
		}
		c.want.Trace = true
		want, err := sim.Run(c.want)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := fmt.Sprint(got.Outcome, got.Trace), fmt.Sprint(want.Outcome, want.Trace); g != w {
			t.Errorf("%s: the simulator's run is %s in %d events, the cell's %s in %d", describePoint(c.rc), got.Outcome, len(got.Trace), want.Outcome, len(want.Trace))
		}
	}
}
