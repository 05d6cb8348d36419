package sim

import (
	"fmt"
	"time"

	"outboxlab/lang"
)

// outage is the broker down for a window: every publish refused, nothing
// delivered.
var outage = FaultSpec{
	Kind: FaultOutage, Form: "FROM FOR",
	Text: lang.Text{
		EN: "the broker is unreachable for a window: every publish refused, nothing delivered",
		DE: "der Broker ist eine Zeit lang nicht erreichbar: jedes Senden abgewiesen, nichts zugestellt",
	},
	parse: func(f *Fault, args []string, _ Known) error {
		if err := argsWant(FaultOutage, args, 2, "FROM FOR"); err != nil {
			return err
		}
		return durations(args, &f.From, &f.For)
	},
	validate: func(f Fault, _ Config) error {
		if f.For <= 0 {
			return fmt.Errorf("sim: %s: For = %s, want > 0", f.Kind, f.For)
		}
		return nil
	},
	install:  func(w *world, f Fault) { w.installOutage(f.From, f.For) },
	budget:   func(f Fault, b *budgetFaults) { b.Outages = append(b.Outages, f.For) },
	describe: func(f Fault) string { return fmt.Sprintf("%s from %s for %s", f.Kind, f.From, f.For) },
	draw: func(d *FaultDraw) (Fault, bool) {
		from := time.Duration(d.Src.Intn("outage-from", 10)) * time.Second
		return Fault{From: from, For: time.Duration(1+d.Src.Intn("outage-for", 15)) * time.Minute}, true
	},
}

// installOutage takes the broker down from from for span, and tells the
// trace.
func (w *world) installOutage(from, span time.Duration) {
	w.broker.Outage(Epoch.Add(from), Epoch.Add(from+span))
	w.outages = append(w.outages, outageWindow{from: from, to: from + span})
}
