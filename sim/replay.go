package sim

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/outbox"
	"outboxlab/variant"
)

// selectiveReplay is one selective replay the operator made: the dead
// letters of an order and an event type.
type selectiveReplay struct{ AggregateID, Type string }

// replayEachCause is the operator who fixes the cause of one rejected
// message at a time and, after each fix, has a relay replay that message's
// dead letters (its order and event type), and lets the system run until
// quiet before the next fix; after the last fix, with no cause left, the
// operator replays everything that is left. It needs a relay that replays
// selectively (variant.SelectiveReplayer); without one it does nothing,
// and the replay of everything after every fix stands for it. A replay
// that puts back more than it was asked to sends a message whose cause is
// not fixed yet into another round of failed attempts, over its publish
// budget.
func (w *world) replayEachCause(horizon time.Duration) error {
	if !w.orderDB.HasTable(outbox.Table) {
		return nil
	}
	relayProc, selective := w.selectiveReplayer()
	if relayProc == nil {
		return nil
	}
	relay := relayProc.relay
	rejections := w.broker.Rejections()
	for i, t := range rejections {
		w.broker.FixRejection(t)
		// The relay may be in the middle of a step (a run that ended
		// busy): the operator's command waits for it.
		w.settle(relayProc)
		_, refused := w.broker.Publishes()
		var err error
		if i == len(rejections)-1 {
			w.ops.full++
			w.putBack(selectiveReplay{}, func() { w.on(relayProc, func() { _, err = relay.ReplayDeadLetters() }) }) // no cause is left
		} else {
			w.on(relayProc, func() { err = w.replayOne(selective, t) })
		}
		if err != nil {
			w.replayFailed(relayProc, err, refused)
		}
		if _, _, err := w.runUntilQuiet(w.clock.Now().Add(horizon)); err != nil {
			return err
		}
	}
	return nil
}

// replayOne has relay replay the dead letters of t's order and event
// type, and notes t's dead letter if it stays one (World.Unreplayed).
func (w *world) replayOne(relay interface {
	ReplayDeadLettersOf(aggregateID, eventType string) (int, error)
}, t broker.Target) error {
	for _, m := range outbox.Unsent(w.orderDB) {
		if m.Status != outbox.DeadLetter || m.Event.AggregateID != t.AggregateID || m.Event.Sequence != t.Sequence {
			continue
		}
		w.ops.selective = append(w.ops.selective, selectiveReplay{m.Event.AggregateID, m.Event.Type})
		var err error
		w.putBack(selectiveReplay{m.Event.AggregateID, m.Event.Type}, func() { _, err = relay.ReplayDeadLettersOf(m.Event.AggregateID, m.Event.Type) })
		if err != nil {
			return err
		}
		tx := w.orderDB.Begin("operator")
		cur, ok := outbox.Get(tx, m.Key)
		tx.Rollback()
		if ok && cur.Status == outbox.DeadLetter {
			w.unreplayed = append(w.unreplayed, variant.DeadLetter{Where: theOutbox, MessageID: m.ID, AggregateID: m.Event.AggregateID, Sequence: m.Event.Sequence, Reason: m.LastError})
		}
	}
	return nil
}

// replayFailed records that the operator's replay on p returned err,
// where the broker had refused refused publishes before it began: the
// operator sees the error and tries again once the broker is back. An
// error without a refused publish during the replay is no failure the
// operator can act on: the replay misreports what happened, and that is
// an error the process should not return (Result.Unhandled).
func (w *world) replayFailed(p *proc, err error, refused int) {
	if w.cfg.Trace {
		w.record(Event{Process: p.name, Kind: EventError, Action: "replay", Says: actionText("replay"), Result: errorResult(err)})
	}
	if _, now := w.broker.Publishes(); now == refused {
		w.unhandled = append(w.unhandled, p.name+": the operator's replay, with nothing refused: "+err.Error())
	}
}

// errNotStarted is a process the operator's replay could not start.
var errNotStarted = errors.New("sim: the process could not be started")

// maxReplays bounds the operator's rounds of replays once every cause is
// fixed (see replayUntilSettled).
const maxReplays = 3

// replayUntilSettled is the operator's replay of the dead letters once
// every cause is fixed, looked at again when the system is quiet: a replay
// can make a new dead letter (a message parked behind a replayed one, kept
// as it was delivered before the fix, fails when its turn comes), which
// the operator replays in turn, up to maxReplays rounds; a replay that
// returned an error (the broker was down) is made again once the broker
// is back. Dead letters that are all old ones, replayed before, end the
// rounds: what failed again after its replay stays, and is STUCK
// (World.Unreplayed). A replayed dead letter that is afterwards neither a
// dead letter, nor delivered, nor waiting vanished (World.Vanished).
func (w *world) replayUntilSettled(horizon time.Duration) error {
	replayed := map[string]bool{}
	failed := false
	for round := 0; round < maxReplays; round++ {
		before := w.deadLetters(w.unsentMessages())
		fresh := round == 0 || failed
		for _, d := range before {
			fresh = fresh || !replayed[d.MessageID]
			replayed[d.MessageID] = true
		}
		if !fresh {
			break
		}
		if failed {
			w.clock.Set(w.broker.UpAt(w.clock.Now())) // the operator tries again once the broker is back
		}
		if len(before) > 0 {
			w.ops.full++
		}
		var err error
		if failed, err = w.replayAll(); err != nil {
			return err
		}
		if _, _, err := w.runUntilQuiet(w.clock.Now().Add(horizon)); err != nil {
			return err
		}
		if len(before) > 0 {
			w.checkVanished(before, w.deadLetterIDs())
		}
	}
	for _, d := range w.deadLetters(w.unsentMessages()) {
		if replayed[d.MessageID] && !w.unreplayedAlready(d.MessageID) {
			w.unreplayed = append(w.unreplayed, d)
		}
	}
	return nil
}

// unreplayedAlready reports whether the dead letter id is noted as
// unreplayed already.
func (w *world) unreplayedAlready(id string) bool {
	for _, d := range w.unreplayed {
		if d.MessageID == id {
			return true
		}
	}
	return false
}

// replayAll is one replay of everything (replayDeadLetters); failed says
// a replay returned an error.
func (w *world) replayAll() (failed bool, err error) {
	err = w.replayDeadLetters()
	var replayErr replayError
	if errors.As(err, &replayErr) {
		return true, nil
	}
	return false, err
}

// replayError is a replay command that returned an error: the operator
// sees it and tries again.
type replayError struct{ err error }

func (e replayError) Error() string { return e.err.Error() }
func (e replayError) Unwrap() error { return e.err }

// replayDeadLetters is the operator's replay, done by every live relay
// (the first puts everything back) and the consumer. A replay that returns
// an error is recorded and the others go on; the error is returned as a
// replayError at the end.
func (w *world) replayDeadLetters() error {
	var failed error
	for _, p := range w.procs {
		if !p.alive {
			if err := w.start(p); err != nil {
				return fmt.Errorf("%w: %w", errNotStarted, err)
			}
		}
		w.settle(p)
		_, refused := w.broker.Publishes()
		var err error
		w.putBack(selectiveReplay{}, func() {
			w.on(p, func() {
				switch {
				case p.relay != nil:
					_, err = p.relay.ReplayDeadLetters()
				case p.consumer != nil:
					w.replayingBilling()
					_, err = p.consumer.ReplayDeadLetters()
				}
			})
		})
		if err != nil && !errors.Is(err, effect.ErrCrashed) {
			w.replayFailed(p, err, refused)
			failed = replayError{fmt.Errorf("sim: replay on %s: %w", p.name, err)}
		}
	}
	return failed
}
