package sim

import (
	"fmt"
	"time"

	"outboxlab/domain"
	"outboxlab/lang"
	"outboxlab/orders"
)

// outage is the broker down for a window: every publish refused, nothing
// delivered.
var outage = withRows(FaultSpec{
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
}, FaultRow{Column: 10, Point: func() Point {
	return Point{ID: string(FaultOutage), Kind: KindFault, Description: lang.Text{
		EN: "the broker is unreachable for ten minutes",
		DE: "der Broker ist zehn Minuten nicht erreichbar",
	}, Faults: []Fault{{Kind: FaultOutage, From: 0, For: 10 * time.Minute}}, Situations: []Situation{Retried}}
}}, FaultRow{Column: 20, Point: outageBacklog})

// outageBacklog is the outage-backlog row: the broker is down for ten
// minutes from the start while twelve orders come in, a backlog of twelve
// messages none of which waits behind another (chapter 001's outage, at
// the lab's scale). Each message keeping to its own backoff is not enough:
// a relay that tries every waiting message on its own schedule sends about
// a hundred requests into the outage where one every ten seconds would do
// (check.DownBudget); the relay pauses as a whole after a failed send.
func outageBacklog() Point {
	var workload []Command
	for i := range 12 {
		amount := domain.Money{Minor: int64(500 + 125*i), Currency: "EUR"}
		workload = append(workload, Command{At: time.Duration(i) * 500 * time.Millisecond,
			Command: orders.Command{Kind: orders.Place, OrderID: fmt.Sprintf("o-%d", i+1), Amount: amount}})
	}
	return Point{ID: "outage-backlog", Kind: KindFault, Description: lang.Text{
		EN: "the broker is unreachable for ten minutes while twelve orders come in",
		DE: "der Broker ist zehn Minuten nicht erreichbar, während zwölf Bestellungen eingehen",
	}, Workload: workload, Faults: []Fault{
		{Kind: FaultOutage, From: 0, For: 10 * time.Minute},
	}, Situations: []Situation{Retried}}
}

// installOutage takes the broker down from from for span, and tells the
// trace.
func (w *world) installOutage(from, span time.Duration) {
	w.broker.Outage(Epoch.Add(from), Epoch.Add(from+span))
	w.outages = append(w.outages, outageWindow{from: from, to: from + span})
}
