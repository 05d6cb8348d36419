package sim

import (
	"fmt"
	"time"

	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/variant"
)

// maxSteps bounds the steps of one phase of a run, a second guard next
// to the virtual horizon (and to Config.StepBudget, which a grader sets
// for the whole run): the lab's own runs take a few thousand a phase at
// most (the reference 4,109 and cdc 3,351 in every run of a grading at
// depth full: the matrix, both sweeps, the polled matrix and 50,000
// explored schedules), and a variant that spins, effect after effect
// without end, or that never settles (a poison message retried for ever,
// a gap handed back to the broker again and again), stops here as STUCK
// within a few hundredths of a second instead of a tenth of one: a
// grading runs thousands of such runs. A large workload adds stepsPerCommand
// for each of its commands (phaseSteps): BenchmarkScaling's 10,000 orders
// took more than 12,000 steps in their first phase and came out LOST.
const maxSteps = 12_000

// stepsPerCommand is what each command of the workload adds to a phase's
// bound: a command's order, its message, its claim, send, mark, delivery
// and acknowledgement are a few steps each.
const stepsPerCommand = 10

// stepsPerProcessCommand is what each command adds to a phase's bound
// for each process beyond the first three (a relay, a service instance,
// a billing instance more): each wakes for the command's message. A run
// of 2,000 orders a millisecond apart took 14,123 steps with one relay,
// 39,061 with 30 and 61,039 with 100 (0.23 more a command for each
// relay): the lab's bound must never be what stops a run the story asked
// for.
const stepsPerProcessCommand = 1

// phaseSteps bounds the steps of one phase of this run.
func (w *world) phaseSteps() int {
	return maxSteps + w.commands*(stepsPerCommand+stepsPerProcessCommand*max(0, len(w.procs)-3))
}

// stormCap is how many messages the broker may store in a run before the
// run stops as a storm: far above what any retry policy of the lab's
// variants publishes (the STORM check judges the exact budget), low
// enough that a relay publishing in a loop stops within a second.
func (w *world) stormCap() int { return 200 + 100*w.commands }

// maxIdlePolls bounds how long a process may say it is due without doing
// anything (its NextWake lies): ten minutes of polls a second apart, then
// the phase ends as busy (STUCK). The lab's own variants never come close.
const maxIdlePolls = 600

// runUntilQuiet steps the world until nothing is due (quiet) or deadline
// passes (not quiet; busy says what was still going on).
func (w *world) runUntilQuiet(deadline time.Time) (quiet bool, busy lang.Text, err error) {
	idle := 0 // polls in a row of a process that says it is due and does nothing
	for steps := 0; steps < w.phaseSteps(); steps++ {
		if b := w.cfg.StepBudget; b > 0 && w.steps >= b {
			w.spun = true
			return false, lang.Textf(lang.Text{
				EN: "%d steps in the run, its whole budget (Config.StepBudget); %s",
				DE: "%d Schritte im Lauf, sein ganzes Budget (Config.StepBudget); %s"}, b, w.busy()), nil
		}
		w.steps++
		did, err := w.tick()
		if err != nil {
			return false, lang.Text{}, err
		}
		if did {
			idle = 0
			if n := len(w.broker.Log()); n > w.stormCap() {
				return false, lang.Textf(lang.Text{
					EN: "the broker stores %d messages for %d commands: a publish storm; %s",
					DE: "der Broker speichert %d Nachrichten für %d Befehle: ein Sturm von Sendeversuchen; %s"}, n, w.commands, w.busy()), nil
			}
			continue
		}
		next, ok := w.nextEvent()
		if !ok {
			return true, lang.Text{}, nil
		}
		if !next.After(w.clock.Now()) {
			// Something claims to be due but did nothing: poll again
			// later, and not for ever.
			if idle++; idle == maxIdlePolls {
				return false, lang.Textf(lang.Text{
					EN: "due for %d polls a second apart without doing anything; %s",
					DE: "fällig für %d Polls im Abstand einer Sekunde, ohne etwas zu tun; %s"}, maxIdlePolls, w.busy()), nil
			}
			next = w.clock.Now().Add(time.Second)
		}
		if next.After(deadline) {
			if w.onlyRestartsLeft() {
				// What is left is a process that does not come back
				// before the check (its host is gone): nothing to do.
				return true, lang.Text{}, nil
			}
			return false, w.busy(), nil
		}
		w.checkSleep(next)
		w.clock.Set(next)
	}
	w.spun = true
	cause, held := w.heldPastLease()
	if !held {
		cause = lang.Text{EN: "a variant that spins, or a story larger than the bound", DE: "eine Variante, die sich im Kreis dreht, oder eine Geschichte, größer als die Grenze"}
	}
	return false, lang.Textf(lang.Text{
		EN: "the lab's bound of %s steps a phase ran out before the run was quiet (12,000, and for each of %d commands %d more and 1 for each of %d processes beyond the first three): %s; %s",
		DE: "die Grenze des Labors von %s Schritten je Phase war erreicht, bevor der Lauf abgeklungen war (12.000 und für jeden von %d Befehlen %d mehr und 1 für jeden von %d Prozessen über die ersten drei hinaus): %s; %s"},
		lang.Count(int64(w.phaseSteps())), w.commands, stepsPerCommand, max(0, len(w.procs)-3), cause, w.busy()), nil
}

// heldPastLease says why a phase's steps ran out when the run shows it: a
// message held under a claim that is still live and runs longer after
// the commit that made it than the relay's policy allows (its declared
// Lease; the lab's variant.MaxLease where it declares none). No other
// relay may take the message before the claim runs out, so they poll for
// it (a relay polled as Relay.Run polls, every IdlePoll): the steps went
// on waiting, not on a variant that spins. It names the oldest such message, whose claim it is (by the
// commit that made it) and whether that process is down.
func (w *world) heldPastLease() (lang.Text, bool) {
	allowed := lang.Textf(lang.Text{EN: "where its policy allows %s", DE: "wo seine Strategie %s erlaubt"}, lang.Duration(w.relayPolicy.Lease))
	lease := w.relayPolicy.Lease
	if lease <= 0 {
		lease = variant.MaxLease
		allowed = lang.Textf(lang.Text{EN: "where the lab allows at most %s (its policy declares no lease)", DE: "wo das Labor höchstens %s erlaubt (seine Strategie nennt keine Lease)"}, lang.Duration(lease))
	}
	now := w.clock.Now()
	var out lang.Text
	held := false
	w.eachUnsent(func(m outbox.Message) {
		if held || m.Status != outbox.InFlight || !m.LeaseUntil.After(now) {
			return
		}
		c, ok := w.claimOf(m.Key)
		if !ok || m.LeaseUntil.Sub(c.at) <= lease {
			return
		}
		held = true
		down := lang.Text{}
		for _, p := range w.procs {
			if p.name == c.process && !p.alive {
				down = lang.Textf(lang.Text{EN: ", and %s is down", DE: ", und %s ist ausgefallen"}, p.name)
			}
		}
		out = lang.Textf(lang.Text{
			EN: "message %s (%s) is held by %s's claim, committed at %s, until %s, a lease of %s %s%s: no other relay may take it before then, and the steps ran out waiting for it",
			DE: "die Nachricht %s (%s) wird vom Claim von %s gehalten, committet um %s, bis %s, eine Lease von %s, %s%s: vorher darf kein anderes Relay sie nehmen, und die Schritte gingen im Warten darauf aus"},
			m.ID, fmt.Sprintf("%s#%d", m.Event.AggregateID, m.Event.Sequence), c.process, TimeText(c.at.Sub(Epoch)), TimeText(m.LeaseUntil.Sub(Epoch)),
			lang.Duration(m.LeaseUntil.Sub(c.at).Round(time.Millisecond)), allowed, down)
	})
	return out, held
}

// tick does one thing at the current time, if anything is due: a restart,
// a retention cleanup, or one move of a process that may move, drawn from
// the seed: resuming a task to its next effect boundary, or starting one (a
// workload command, a relay's step, a delivery).
func (w *world) tick() (bool, error) {
	now := w.clock.Now()
	for _, p := range w.procs {
		if !p.alive && !p.restartAt.After(now) {
			if w.cfg.Trace {
				w.record(Event{Process: p.name, Kind: EventRestart})
			}
			return true, w.start(p)
		}
	}
	if w.crashing && len(w.kills) > 0 && !Epoch.Add(w.kills[0].From).After(now) {
		f := w.kills[0]
		w.kills = w.kills[1:]
		w.kill(f.Process, f.For)
		return true, nil
	}
	if len(w.cfg.Cleanups) > 0 && !Epoch.Add(w.cfg.Cleanups[0]).After(now) {
		w.cfg.Cleanups = w.cfg.Cleanups[1:]
		return true, w.cleanup()
	}
	if at, ok := w.replayAt(); ok && !at.After(now) {
		w.replaysAt = w.replaysAt[1:]
		return true, w.replayDuringRun()
	}
	if len(w.cfg.Resends) > 0 && !Epoch.Add(w.cfg.Resends[0].At).After(now) {
		r := w.cfg.Resends[0]
		w.cfg.Resends = w.cfg.Resends[1:]
		w.resend(r)
		return true, nil
	}
	w.ready = w.ready[:0]
	for _, p := range w.procs {
		if p.alive && !p.stalledUntil.After(now) && (p.task || w.due(p, now)) {
			w.ready = append(w.ready, p)
		}
	}
	for len(w.ready) > 0 {
		i := w.rng.IntN(len(w.ready))
		p := w.ready[i]
		if p.task {
			w.resumeTrace(p)
			w.resume(p)
			return true, nil
		}
		if w.startActivity(p) {
			return true, nil
		}
		w.ready = append(w.ready[:i], w.ready[i+1:]...) // nothing to do after all
	}
	return false, nil
}

// due reports whether p has something to start at now.
func (w *world) due(p *proc, now time.Time) bool {
	var at time.Time
	ok := false
	switch {
	case p.service != nil:
		if len(w.cfg.Workload) > 0 {
			at, ok = Epoch.Add(w.cfg.Workload[0].At), true
		}
	case p.relay != nil:
		at, ok = w.wakeOf(p)
	case p.consumer != nil:
		at, ok = w.broker.NextAvailable(w.subscription())
	}
	return ok && !at.After(now)
}

// startActivity starts p's next activity and reports whether it did
// anything.
func (w *world) startActivity(p *proc) bool {
	switch {
	case p.service != nil:
		cmd := w.cfg.Workload[0]
		w.cfg.Workload = w.cfg.Workload[1:]
		if w.cfg.Trace {
			w.record(Event{Process: p.name, Kind: EventCommand, Action: cmd.Command.String(), Says: commandText(cmd.Command)})
		}
		svc := p.service
		incarnation := p.incarnation
		w.begin(p, func() (bool, error) {
			err := svc.Handle(cmd.Command)
			if err == nil && p.alive && p.incarnation == incarnation { // a dead process answers nobody
				w.acknowledged = append(w.acknowledged, cmd.Command.OrderID)
			}
			return true, err
		})
		return true
	default: // a relay or a consumer
		return w.begin(p, p.step)
	}
}

// onlyRestartsLeft reports whether every live process is idle with
// nothing due at any time, so that all that is left to happen is a
// restart of a dead one.
func (w *world) onlyRestartsLeft() bool {
	if len(w.cfg.Workload) > 0 && w.serviceAlive() || len(w.cfg.Cleanups) > 0 || len(w.replaysAt) > 0 {
		return false
	}
	for _, p := range w.procs {
		switch {
		case !p.alive:
		case p.task:
			return false
		case p.relay != nil:
			if _, ok := w.wakeOf(p); ok {
				return false
			}
		case p.consumer != nil:
			if _, ok := w.broker.NextAvailable(w.subscription()); ok {
				return false
			}
		}
	}
	return true
}

// nextEvent returns the earliest future time at which something is due:
// a restart, a workload command, a relay's next claim, a delivery, the end
// of a stall.
func (w *world) nextEvent() (time.Time, bool) {
	var next time.Time
	found := false
	consider := func(t time.Time) {
		if !found || t.Before(next) {
			next, found = t, true
		}
	}
	for _, p := range w.procs {
		switch {
		case !p.alive:
			consider(p.restartAt)
		case p.task:
			consider(p.stalledUntil)
		case p.relay != nil:
			if t, ok := w.wakeOf(p); ok {
				consider(later(t, p.stalledUntil))
			}
		case p.consumer != nil:
			if t, ok := w.broker.NextAvailable(w.subscription()); ok {
				consider(later(t, p.stalledUntil))
			}
		}
	}
	if len(w.cfg.Workload) > 0 && w.serviceAlive() {
		consider(Epoch.Add(w.cfg.Workload[0].At))
	}
	if len(w.cfg.Cleanups) > 0 {
		consider(Epoch.Add(w.cfg.Cleanups[0]))
	}
	if len(w.cfg.Resends) > 0 {
		consider(Epoch.Add(w.cfg.Resends[0].At))
	}
	if at, ok := w.replayAt(); ok {
		consider(at)
	}
	if len(w.kills) > 0 && w.crashing {
		consider(Epoch.Add(w.kills[0].From))
	}
	return next, found
}

// serviceAlive reports whether an instance of the service is alive to take
// the next command.
func (w *world) serviceAlive() bool {
	for _, p := range w.procs {
		if p.role == roleService && p.alive {
			return true
		}
	}
	return false
}

// wakeOf returns when relay p wants to work next, by the true time. A relay
// tells it by the clock it reads, which may be its own skewed one or the
// database's: the earlier reading is taken, and a relay woken too early
// does nothing and is asked again later.
//
// NextWake answers from what the databases and the broker hold and from
// the relay's own state, which only its steps change (variant.Relay): the
// answer is kept until one of them moves, for asking means a query.
func (w *world) wakeOf(p *proc) (time.Time, bool) {
	state := wakeState{w.orderDB.LastSeq(), w.billingDB.LastSeq(), w.broker.Changes(), p.incarnation, p.steps}
	if p.wake.valid && p.wake.state == state {
		return p.wake.at, p.wake.ok
	}
	prev := w.running
	w.running = p.name
	t, ok := p.relay.NextWake()
	w.running = prev
	switch {
	case ok && w.cfg.Poll:
		t = w.nextPoll(p) // by the true time: a poll is a timer, not a reading of the clock
	case ok && p.skew > 0:
		t = t.Add(-p.skew)
	}
	p.wake = wake{valid: true, state: state, at: t, ok: ok}
	return t, ok
}

// wake is a relay's answer to NextWake in one state of the world.
type wake struct {
	valid bool
	state wakeState
	at    time.Time
	ok    bool
}

// wakeState is what a relay's NextWake answers from: the commits of both
// databases, what the broker did, and the relay's own state, which a
// restart builds anew and its steps change.
type wakeState struct {
	orders, billing, broker uint64
	incarnation, steps      int
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// busy describes what keeps the world from being quiet.
func (w *world) busy() lang.Text {
	var parts []lang.Text
	for _, p := range w.procs {
		if p.relay != nil {
			if t, ok := p.relay.NextWake(); ok {
				parts = append(parts, lang.Textf(lang.Text{EN: "%s wants to work again %s", DE: "%[1]s will %[2]s wieder arbeiten"},
					p.name, fromNow(t.Sub(w.clock.Now()))))
			}
		}
	}
	if n := w.broker.Pending(w.subscription()); n > 0 {
		parts = append(parts, lang.Textf(lang.Text{EN: "%d deliveries pending", DE: "%d Zustellungen ausstehend"}, n))
	}
	if len(parts) == 0 {
		return lang.Text{EN: "unknown", DE: "unbekannt"}
	}
	return lang.Join(parts, "; ")
}

// fromNow is FromNow in both languages.
func fromNow(d time.Duration) lang.Text {
	const day, year = 24 * time.Hour, 365 * 24 * time.Hour
	switch {
	case d <= 0:
		return lang.Text{EN: "now", DE: "jetzt"}
	case d >= year:
		return lang.Textf(lang.Text{EN: "in %d years", DE: "in %d Jahren"}, d/year)
	case d >= day:
		return lang.Textf(lang.Text{EN: "in %d days", DE: "in %d Tagen"}, d/day)
	}
	return lang.Textf(lang.Text{EN: "in %s", DE: "in %s"}, lang.Duration(d.Round(time.Millisecond)))
}
