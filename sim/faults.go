package sim

import (
	"slices"
	"time"

	"outboxlab/broker"
	"outboxlab/lang"
)

// installFault installs one planned fault of the run: a broker's fault in
// the broker, a stall, a commit failure or a kill in the world's plan.
func (w *world) installFault(f Fault) {
	if spec, ok := f.Kind.Spec(); ok { // Validate refused any other
		spec.install(w, f)
	}
}

// plannedFailure is a commit failure still to happen, and, for one aimed
// at a message (Fault.Target), how many commits about it it has counted.
type plannedFailure struct {
	Fault
	seen int
}

// failHere counts an effect of p at bp's boundary and reports whether a
// commit-failure fault fails this one: the Occurrence-th commit at the
// boundary and the Burst-1 after it, or, for a fault aimed at a message,
// the commits p makes there about it (see aboutMessage).
func (w *world) failHere(p *proc, bp *boundaryPoints) bool {
	if !w.crashing || len(w.failures) == 0 {
		return false
	}
	bp.performed++
	for i := range w.failures {
		f := &w.failures[i]
		if f.Point != bp.b.String() {
			continue
		}
		n := bp.performed
		if f.Target != (broker.Target{}) {
			if w.aboutMessage(p) != f.Target {
				continue
			}
			f.seen++
			n = f.seen
		}
		last := f.Occurrence + max(f.Burst, 1) - 1
		if n < f.Occurrence || n > last {
			continue
		}
		if n == last {
			w.failures = slices.Delete(w.failures, i, i+1)
		}
		w.failed++
		return true
	}
	return false
}

// aboutMessage returns the message a commit of p is about: for billing,
// the delivery it holds; for a relay, the message it tried to publish
// last; none for a service (its commit is a command's).
func (w *world) aboutMessage(p *proc) broker.Target {
	switch p.role {
	case roleConsumer:
		if held := w.broker.InFlight(w.subscription()); len(held) > 0 {
			e := held[len(held)-1].Event
			return broker.Target{AggregateID: e.AggregateID, Sequence: e.Sequence}
		}
	case roleRelay:
		return p.lastTried
	}
	return broker.Target{}
}

// stallHere freezes p if a stall is planned for it at point: it is not
// scheduled again before the stall ends. Only a process inside a task can
// stall (a recovery runs at once).
func (w *world) stallHere(p *proc, point string) bool {
	if p.yield == nil || !w.crashing {
		return false
	}
	for i, f := range w.stalls {
		if f.Process != p.name || f.Point != point {
			continue
		}
		w.stalls = append(w.stalls[:i:i], w.stalls[i+1:]...)
		w.stalled++
		p.stalledUntil, p.frozen = w.clock.Now().Add(f.For), point
		if w.cfg.Trace {
			w.record(Event{Process: p.name, Kind: EventStall, Action: point,
				Changes: []lang.Text{lang.Textf(lang.Text{EN: "frozen until %s, holding what it holds", DE: "eingefroren bis %s, hält fest, was er hält"}, TimeText(p.stalledUntil.Sub(Epoch)))}})
		}
		return true
	}
	return false
}

// crashHere counts that pt was reached and crashes p if the plan says so.
func (w *world) crashHere(p *proc, pt *crashPoint) bool {
	if !w.crashing {
		return false
	}
	pt.reached++
	if len(w.plan) == 0 {
		return false
	}
	pt.counted++
	next := w.plan[0]
	if next.Point != pt.id || pt.counted != next.Occurrence {
		return false
	}
	w.plan = w.plan[1:]
	for _, bp := range w.points {
		bp.before.counted, bp.after.counted = 0, 0
	}
	w.fired = append(w.fired, FiredCrash{Crash: next, Process: p.name, At: w.clock.Since()})
	down := time.Duration(0)
	if next.ForGood {
		down = ForGood
	}
	w.crash(p, pt.id, down)
	return true
}

// crash kills p for down (RestartDelay if 0): its open transactions are
// aborted, its unacknowledged deliveries go back to the broker, its
// volatile state is gone.
func (w *world) crash(p *proc, point string, down time.Duration) {
	if down <= 0 {
		down = w.cfg.RestartDelay
	}
	p.alive = false
	p.crashedAt = point
	p.stalledUntil, p.frozen = time.Time{}, "" // a freeze ends with the process
	p.service, p.relay, p.consumer, p.step = nil, nil, nil, nil
	p.restartAt = w.clock.Now().Add(down)
	aborted := w.orderDB.Crash(p.name) + w.billingDB.Crash(p.name)
	switch {
	case p.role == roleConsumer:
		w.broker.Disconnect(w.subscription())
	case p.role == roleRelay && w.cfg.Variant.RelaySubscription != "":
		w.broker.Disconnect(w.cfg.Variant.RelaySubscription)
	}
	if w.cfg.Trace {
		w.record(Event{Process: p.name, Kind: EventCrash, Action: point,
			Changes: []lang.Text{lang.Textf(lang.Text{EN: "%s aborted; restart at %s", DE: "%s abgebrochen; Neustart um %s"}, openTransactions(aborted), TimeText(p.restartAt.Sub(Epoch)))}})
	}
}

// kill crashes the named process wherever it stands, if it is alive, for
// down (RestartDelay if 0): a
// task it was in the middle of returns from its boundary with
// effect.ErrCrashed and unwinds.
func (w *world) kill(name string, down time.Duration) {
	for _, p := range w.procs {
		if p.name != name || !p.alive {
			continue
		}
		w.killed++
		w.crash(p, "kill", down)
		if p.task {
			stopWorker(p)
		}
	}
}

// openTransactions counts the open transactions a crash aborted, in both
// languages.
func openTransactions(n int) lang.Text {
	if n == 1 {
		return lang.Text{EN: "1 open transaction", DE: "1 offene Transaktion"}
	}
	return lang.Textf(lang.Text{EN: "%d open transactions", DE: "%d offene Transaktionen"}, n)
}
