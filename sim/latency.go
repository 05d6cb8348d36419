package sim

import (
	"time"

	"outboxlab/broker"
	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/sim/check"
	"outboxlab/store"
	"outboxlab/variant"
)

// The latency check (LATE). Chapter 004 says how long a message takes:
// as long as the relay's polling and the faults make it wait, no longer.
// The simulator watches for two ways a message waits for nothing:
//
//   - held: a relay ends a step still holding a message under a live lease
//     it took in this life. No other relay may claim it and this one does
//     not send it until the lease runs out: the reference gives a failed
//     batch's unsent rest back at once. The same for a claim it took in an
//     earlier life: a relay that restarts gives its own claims back in its
//     recovery (chapter 000 section 5, recoverInFlightAfterCrash), unless
//     the recovery failed.
//   - overslept: the clock passes the time a message became claimable,
//     with the broker up, while a relay that is alive and idle sleeps on
//     past it, longer than one idle poll (outbox.Config.IdlePoll) and
//     longer than its own failures excuse: the pause after n refused
//     publishes in a row its policy declares (variant.RelayPolicy.Pause),
//     as the lab counts them, and never more than the lab accepts
//     (variant.MaxPause).
//
// Both are judged by what the lab sees (the outbox table and its commit
// log, the broker's answers, the relay's NextWake), with the course's
// polling, so a relay that pauses longer than it declares or leaves
// claims lying is LATE.

// latencyPolicy is the polling the check holds relays to: the course's
// idle and busy polls (chapter 003: 500 ms and 50 ms). The pause after
// refused publishes is the relay's own declared one (pause).
var latencyPolicy = outbox.DefaultConfig("")

// pause is how long relays may pause after n refused publishes in a row:
// the declared policy's pause, and never longer than the lab accepts
// (variant.MaxPause).
func (w *world) pause(n int) time.Duration { return min(w.relayPolicy.Pause(n), variant.MaxPause) }

// countSends updates p's count of refused publishes in a row after one of
// its effects, given the broker's counts before it.
func (w *world) countSends(p *proc, calls, refused int, at time.Time) {
	c, r := w.broker.Publishes()
	if a, ok := w.broker.LastAttempt(); ok && c == calls+1 {
		w.tries = append(w.tries, check.Try{MessageID: a.ID, AggregateID: a.Event.AggregateID, Sequence: a.Event.Sequence, At: at, By: p.name, Failed: r > refused})
		p.lastTried = broker.Target{AggregateID: a.Event.AggregateID, Sequence: a.Event.Sequence}
	}
	switch {
	case c == calls: // the effect published nothing
	case r > refused:
		p.failedSends += r - refused
		p.sendFailed = true
	default:
		p.failedSends = 0
	}
}

// endStep runs when relay p's step ended, having done something or not,
// with err (nil, a crash, any other error): a relay pauses after the step
// that saw a refused publish, so its pause is counted from the step's end.
func (w *world) endStep(p *proc, did bool, err error) {
	p.lastStep, p.lastDid = w.clock.Now(), did
	p.steps++ // its own state may have changed (see wakeOf)
	if p.sendFailed {
		p.lastFailedSend, p.sendFailed = w.clock.Now(), false
	}
	if err == nil {
		w.checkHeld(p)
	} else {
		p.erred = w.clock.Now()
	}
}

// nextPoll is when relay p polls next if driven as Relay.Run drives it
// (Config.Poll): at once when it has not stepped yet in this life, then
// an idle poll after a step that did nothing, a busy poll after one that
// did something.
func (w *world) nextPoll(p *proc) time.Time {
	switch {
	case p.lastStep.IsZero():
		return p.started
	case p.lastDid:
		return p.lastStep.Add(latencyPolicy.BusyPoll)
	default:
		return p.lastStep.Add(latencyPolicy.IdlePoll)
	}
}

// checkHeld runs when relay p finished a step without an error: a message
// still claimed by p under a live lease, claimed in this incarnation since
// its last step that ended with an error, is held for nothing. A step that
// fails (a commit that did not go through, an error it returns) leaves its
// claims to their leases by right: it could not record them, and the
// error is reported on its own (Result.Unhandled).
func (w *world) checkHeld(p *proc) {
	now := w.clock.Now()
	// A claim is dated by its commit, on the database's clock; one older
	// than this incarnation or its last failed step waits for its lease
	// by right. Whose claim it is, the commit says too: the process that
	// made it, whatever owner name it wrote.
	born := later(p.started, p.erred)
	w.eachUnsent(func(m outbox.Message) {
		if m.Status != outbox.InFlight || !now.Before(m.LeaseUntil) {
			return
		}
		c, ok := w.claimOf(m.Key)
		if !ok || c.process != p.name {
			return
		}
		if c.at.Before(p.started) && p.incarnation > 1 && !p.recoverFailed && p.erred.IsZero() {
			// Its own claim from before it died, which its recovery did
			// not give back: no other relay may send the message until
			// the lease runs out.
			w.delay(m, lang.Textf(lang.Text{
				EN: "%s restarted at %s and ended a step at %s still holding its own claim from before its crash (committed at %s) under a lease until %s: a restarted relay gives its claims back in its recovery (chapter 000 section 5), or they wait out the lease",
				DE: "%s startete um %s neu und beendete um %s einen Schritt mit seinem eigenen Claim von vor dem Absturz (committet um %s) unter einer Lease bis %s: ein neu gestartetes Relay gibt seine Claims in seiner Wiederherstellung zurück (Kapitel 000 Abschnitt 5), sonst warten sie die Lease ab"},
				p.name, TimeText(p.started.Sub(Epoch)), TimeText(now.Sub(Epoch)), TimeText(c.at.Sub(Epoch)), TimeText(m.LeaseUntil.Sub(Epoch))))
			return
		}
		if c.at.Before(born) {
			return
		}
		w.delay(m, lang.Textf(lang.Text{
			EN: "%s ended a step at %s still holding it, claimed, under a lease until %s: no relay may send it before then (a failed batch's unsent rest goes back at once)",
			DE: "%s beendete um %s einen Schritt und hielt sie noch, geclaimt, unter einer Lease bis %s: vorher darf kein Relay sie senden (der ungesendete Rest eines gescheiterten Stapels geht sofort zurück)"},
			p.name, TimeText(now.Sub(Epoch)), TimeText(m.LeaseUntil.Sub(Epoch))))
	})
}

// claim is who holds an outbox row's claim by the commit log: the process
// that committed it, and when.
type claim struct {
	process string
	at      time.Time
}

// claimOf returns the claim of the outbox row key as the order database's
// log tells it, reading the log on from where it last stopped.
func (w *world) claimOf(key string) (claim, bool) {
	for _, c := range w.orderDB.Log(w.claimsSeen) {
		w.claimsSeen = c.Seq
		for _, ch := range c.Changes {
			if ch.Table != outbox.Table {
				continue
			}
			if m, ok := ch.Value.(outbox.Message); ok && !ch.Deleted && m.Status == outbox.InFlight {
				if w.claims == nil {
					w.claims = map[string]claim{}
				}
				w.claims[ch.Key] = claim{process: committer(c), at: c.At}
				continue
			}
			delete(w.claims, ch.Key)
		}
	}
	c, ok := w.claims[key]
	return c, ok
}

// eachUnsent calls fn with every message of the outbox that is not SENT,
// oldest first; a variant without an outbox has none. (outbox.Unsent
// returns the same as a slice; the checks run at every step and jump.)
func (w *world) eachUnsent(fn func(outbox.Message)) {
	if !w.orderDB.HasTable(outbox.Table) || w.orderDB.IndexLen(outbox.Table, outbox.IndexUnsent) == 0 {
		return
	}
	tx := w.orderDB.Begin("sim")
	defer tx.Rollback()
	tx.ScanIndex(outbox.Table, outbox.IndexUnsent, func(_ string, v any) bool {
		fn(v.(outbox.Message))
		return true
	})
}

// checkSleep runs when the clock is about to jump to next because nothing
// is due before: a message claimable (and the broker up) more than an idle
// poll before next, counted from now at the earliest, waits for nothing if
// a live, idle relay sleeps past it beyond what its own failures excuse.
func (w *world) checkSleep(next time.Time) {
	if !next.After(w.clock.Now().Add(latencyPolicy.IdlePoll)) {
		return // a message waits from now at the earliest: not long enough
	}
	m, due, ok := w.firstClaimable()
	if !ok {
		return
	}
	// It waits from when it is due, or from now if that is later: a
	// message that went back to PENDING (released, replayed) says when it
	// was created, not when it could be claimed again.
	due = w.broker.UpAt(later(due, w.clock.Now()))
	if !next.After(due.Add(latencyPolicy.IdlePoll)) {
		return
	}
	for _, p := range w.procs {
		if p.relay == nil || !p.alive || p.task {
			continue
		}
		excused := later(due, p.stalledUntil)
		why := lang.Text{}
		if p.failedSends > 0 {
			pause := p.lastFailedSend.Add(w.pause(p.failedSends))
			if pause.After(excused) {
				excused = pause
				why = lang.Textf(lang.Text{
					EN: ", its pause after %d refused publish(es) in a row until %s",
					DE: ", seine Pause nach %d abgelehnten Sendeversuch(en) in Folge bis %s"}, p.failedSends, TimeText(pause.Sub(Epoch)))
			}
		}
		excused = excused.Add(latencyPolicy.IdlePoll + abs(p.skew))
		wake, ok := w.wakeOf(p)
		if ok && !wake.After(excused) {
			continue
		}
		sleep := lang.Text{EN: "for good", DE: "für immer"}
		if ok {
			sleep = lang.Textf(lang.Text{EN: "until %s", DE: "bis %s"}, TimeText(wake.Sub(Epoch)))
		}
		w.delay(m, lang.Textf(lang.Text{
			EN: "it could be claimed from %s, the broker up, but %s slept %s (allowed: an idle poll of %s%s)",
			DE: "sie war ab %s claimbar, der Broker erreichbar, aber %s schlief %s (erlaubt: ein Leerlauf-Poll von %s%s)"},
			TimeText(due.Sub(Epoch)), p.name, sleep, lang.Duration(latencyPolicy.IdlePoll), why))
	}
}

// firstClaimable returns the message of the outbox that may be claimed
// first, and when: of each aggregate's oldest unsent message (its later
// ones wait behind it), the one with the earliest ClaimableAt. It is the
// relay adapter's NextWake (variant.RelayAdapter) without the pause,
// computed here on purpose: the check judges a relay's NextWake, so it
// must not ask it.
func (w *world) firstClaimable() (outbox.Message, time.Time, bool) {
	var first outbox.Message
	var at time.Time
	found := false
	seen := map[string]bool{}
	w.eachUnsent(func(m outbox.Message) {
		if seen[m.Event.AggregateID] {
			return
		}
		seen[m.Event.AggregateID] = true
		if t, ok := m.ClaimableAt(); ok && (!found || t.Before(at)) {
			first, at, found = m, t, true
		}
	})
	return first, at, found
}

// delay records that m waited for no reason, the first time it did.
func (w *world) delay(m outbox.Message, detail lang.Text) {
	if w.delayed[m.ID] {
		return
	}
	if w.delayed == nil {
		w.delayed = map[string]bool{}
	}
	w.delayed[m.ID] = true
	w.delays = append(w.delays, check.Delay{AggregateID: m.Event.AggregateID, Sequence: m.Event.Sequence, Detail: detail})
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// committer is the process that made commit c, as the database recorded
// it (the simulator's session: see world.running).
func committer(c store.Commit) string {
	if c.Process != "" {
		return c.Process
	}
	return c.Owner
}
