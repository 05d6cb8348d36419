package sim

import (
	"time"

	"outboxlab/lang"
)

// outageWindow is a broker outage as the trace tells it: its beginning
// and end are events at their planned times, recorded with the first
// event of a process at or after them.
type outageWindow struct {
	from, to     time.Duration
	begun, ended bool
}

// traceOutages records every beginning and end of an outage whose time
// due says is due, in time order.
func (w *world) traceOutages(due func(at time.Duration) bool) {
	for {
		var next *outageWindow
		var at time.Duration
		for i := range w.outages {
			o := &w.outages[i]
			switch {
			case !o.begun && due(o.from) && (next == nil || o.from < at):
				next, at = o, o.from
			case o.begun && !o.ended && due(o.to) && (next == nil || o.to < at):
				next, at = o, o.to
			}
		}
		if next == nil {
			return
		}
		if !next.begun {
			next.begun = true
			w.trace = append(w.trace, Event{At: at, Process: "broker", Kind: EventFault, Action: string(FaultOutage),
				Changes: []lang.Text{lang.Textf(lang.Text{EN: "down until %s: every publish refused, nothing delivered", DE: "nicht erreichbar bis %s: jedes Senden abgewiesen, nichts zugestellt"}, TimeText(next.to))}})
			continue
		}
		next.ended = true
		w.trace = append(w.trace, Event{At: at, Process: "broker", Kind: EventFault, Action: string(FaultOutage) + " over", Says: outageOver,
			Changes: []lang.Text{{EN: "up again", DE: "wieder erreichbar"}}})
	}
}

// healOutages ends the trace's outages at the quiesce's heal: one in
// progress ends now, one planned for later never begins.
func (w *world) healOutages() {
	if !w.cfg.Trace {
		return
	}
	now := w.clock.Since()
	w.traceOutages(func(at time.Duration) bool { return at <= now })
	for i := range w.outages {
		o := &w.outages[i]
		if o.begun && !o.ended {
			w.trace = append(w.trace, Event{At: now, Process: "broker", Kind: EventFault, Action: string(FaultOutage) + " over",
				Says: outageOver, Changes: []lang.Text{{EN: "up again: healed for the quiesce", DE: "wieder erreichbar: für das Abklingen behoben"}}})
		}
		o.begun, o.ended = true, true
	}
}

// outageOver is the line of an outage's end.
var outageOver = lang.Text{EN: string(FaultOutage) + " over", DE: string(FaultOutage) + " vorbei"}
