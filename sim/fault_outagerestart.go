package sim

import (
	"fmt"
	"time"

	"outboxlab/lang"
)

// FaultOutageRestart is chapter 004's outage that outlasts a restart:
// "Die Nachrichten zu diesen Fällen bleiben bis zum Ende der Störung in
// der Outbox gespeichert, auch wenn der Schadendienst in der
// Zwischenzeit neu startet." The broker is down from From for For, and
// halfway through it every service instance and every relay is killed
// and restarts RestartDelay later, still inside the outage: what waits
// for the broker must wait in the database, not in a process's memory.
const FaultOutageRestart FaultKind = "outage-restart"

var outageRestart = FaultSpec{
	Kind: FaultOutageRestart, Form: "FROM FOR",
	Text: lang.Text{
		EN: "the broker is unreachable for a window, and halfway through it the service and the relays restart",
		DE: "der Broker ist eine Zeit lang nicht erreichbar, und mittendrin starten Service und Relays neu",
	},
	parse: func(f *Fault, args []string, _ Known) error {
		if err := argsWant(FaultOutageRestart, args, 2, "FROM FOR"); err != nil {
			return err
		}
		return durations(args, &f.From, &f.For)
	},
	validate: func(f Fault, c Config) error {
		if f.From < 0 || f.For <= c.RestartDelay*2 {
			return fmt.Errorf("sim: %s: From = %s, For = %s; want From >= 0 and For > twice RestartDelay (%s), so that the restart falls inside the outage", f.Kind, f.From, f.For, c.RestartDelay)
		}
		return nil
	},
	install: func(w *world, f Fault) {
		w.installOutage(f.From, f.For)
		for _, p := range w.procs {
			if p.role == roleService || p.role == roleRelay {
				w.planKill(Fault{Kind: FaultKill, Process: p.name, From: f.From + f.For/2})
			}
		}
	},
	budget:   func(f Fault, b *budgetFaults) { b.Outages = append(b.Outages, f.For) },
	describe: func(f Fault) string { return fmt.Sprintf("%s from %s for %s", f.Kind, f.From, f.For) },
	NotDrawn: "exploration draws outages and kills, which make it when a kill falls inside an outage",
	Rows: []FaultRow{{Column: 220, Point: func() Point {
		return Point{ID: string(FaultOutageRestart), Kind: KindFault,
			Faults:     []Fault{{Kind: FaultOutageRestart, From: 0, For: 10 * time.Minute}},
			Situations: []Situation{Retried}, Like: string(FaultOutage),
			Description: lang.Text{
				EN: "the broker is unreachable for ten minutes, and the service and the relays restart five minutes in",
				DE: "der Broker ist zehn Minuten nicht erreichbar, und nach fünf Minuten starten Service und Relays neu",
			}}
	}}},
}
