package sim

import (
	"errors"
	"slices"
	"time"

	"outboxlab/effect"
	"outboxlab/lang"
	"outboxlab/store"
)

// gate is the effect.Gate of one incarnation of one process.
type gate struct {
	w           *world
	p           *proc
	incarnation int
}

// Cross implements effect.Gate: it may crash the process before or after
// the effect, and records the crossing in the trace.
func (g gate) Cross(b effect.Boundary, do func() error) error {
	w, p := g.w, g.p
	if !p.alive || p.incarnation != g.incarnation {
		// A dead process has no effects. An activity of its that got
		// here went on after its crash: a misstep (checkSwallowed).
		if wk := p.worker; wk != nil && w.running == p.name && wk.incarnation == g.incarnation && wk.crossedDead == "" {
			wk.crossedDead = b.String()
		}
		return effect.ErrCrashed
	}
	// A scheduling point: any other process may run before this effect.
	if p.yield != nil && !p.yield(struct{}{}) {
		return effect.ErrCrashed // the run ended while it waited
	}
	points := w.pointsOf(b)
	if w.stallHere(p, points.before.id) && !p.yield(struct{}{}) {
		return effect.ErrCrashed
	}
	if w.crashHere(p, &points.before) {
		return effect.ErrCrashed
	}
	var err error
	wk := w.activityOf(p, g.incarnation)
	w.retriedCommit(wk, p, points)
	if w.failHere(p, points) {
		err = ErrCommitFailed
		if wk != nil {
			wk.failed = append(wk.failed, failedCommit{at: points, about: w.aboutMessage(p)})
		}
	} else {
		calls, refused := w.broker.Publishes()
		down := w.broker.AttemptsWhileDown()
		at := w.clock.Now()
		err = do()
		w.countSends(p, calls, refused, at)
		if p.role == roleRelay {
			w.relayDown += w.broker.AttemptsWhileDown() - down
		}
	}
	w.clock.Set(w.clock.Now().Add(w.effectCost()))
	if w.cfg.Trace {
		result := lang.Plain("ok")
		switch {
		case errors.Is(err, store.ErrConflict):
			// First committer wins: the expected end of a race, not a fault.
			result = lang.Text{EN: "refused, nothing written: another transaction committed this row first",
				DE: "abgewiesen, nichts geschrieben: eine andere Transaktion hat diese Zeile zuerst committet"}
		case err != nil:
			result = errorResult(err)
		}
		changes, ids, rows, actions := w.changesSince(w.seen)
		w.seen = w.mark()
		w.record(Event{Process: p.name, Kind: EventEffect, Action: b.String(), Result: result, Messages: ids, Changes: changes, Rows: rows,
			Broker: slices.Clone(actions)})
	}
	if err != nil {
		return err
	}
	if w.crashHere(p, &points.after) {
		return effect.ErrCrashed
	}
	return nil
}

// activityOf returns p's activity in progress in the given incarnation,
// or nil: an operator's command on p between two activities is none.
func (w *world) activityOf(p *proc, incarnation int) *worker {
	if wk := p.worker; wk != nil && p.task && w.running == p.name && wk.incarnation == incarnation {
		return wk
	}
	return nil
}

// retriedCommit runs before an effect at bp: when a commit of the same
// activity at bp, about the same message, failed before, this is that
// commit tried again, and the failure was handled, not swallowed. It
// counts as reported (FailureReported), as one that came back as an
// error does: the lab's failed commit committed nothing, so a consumer
// that commits its transaction (effect and inbox row) again within its
// step loses and repeats nothing. A retry that fails too is a failure
// of its own, to be tried again or returned.
func (w *world) retriedCommit(wk *worker, p *proc, bp *boundaryPoints) {
	if wk == nil || len(wk.failed) == 0 {
		return
	}
	about := w.aboutMessage(p)
	for i, f := range wk.failed {
		if f.at == bp && f.about == about {
			wk.failed = slices.Delete(wk.failed, i, i+1)
			w.reported++
			return
		}
	}
}

// effectCost draws how long an effect takes: EffectCost on average, between
// half and one and a half times it.
func (w *world) effectCost() time.Duration {
	if w.cfg.EffectCost <= 0 {
		return 0
	}
	return w.cfg.EffectCost/2 + time.Duration(w.rng.Int64N(int64(w.cfg.EffectCost)))
}

// crashPoint is one crash point of the run and how often it was reached.
type crashPoint struct {
	id      string // b.Before() or b.After() of its boundary
	reached int    // while crashes may fire
	counted int    // since the previous planned crash fired
}

// boundaryPoints are the two crash points of a boundary.
type boundaryPoints struct {
	b             effect.Boundary
	before, after crashPoint
	// performed counts the effects performed here while crashes could
	// fire (what a commit-failure's Occurrence counts).
	performed int
}

// pointsOf returns b's crash points, made at its first crossing, so that a
// crossing builds no string. A run crosses a dozen boundaries at most: a
// linear search finds them. A boundary is its process and effect: a
// variant's own declaration without a Kind is the same boundary.
func (w *world) pointsOf(b effect.Boundary) *boundaryPoints {
	for _, bp := range w.points {
		if bp.b.Process == b.Process && bp.b.Effect == b.Effect {
			return bp
		}
	}
	bp := &boundaryPoints{b: b, before: crashPoint{id: b.Before()}, after: crashPoint{id: b.After()}}
	w.points = append(w.points, bp)
	return bp
}

// reached returns how often each crash point was reached while crashes
// could fire, by point id.
func (w *world) reached() map[string]int {
	out := map[string]int{}
	for _, bp := range w.points {
		for _, pt := range []*crashPoint{&bp.before, &bp.after} {
			if pt.reached > 0 {
				out[pt.id] = pt.reached
			}
		}
	}
	return out
}
