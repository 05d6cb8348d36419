package mistakes

import (
	"errors"
	"fmt"

	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/variant"
)

// MarkBeforeSend claims messages like the reference relay, but marks each
// SENT before it hands it to the broker.
//
// WRONG: SENT must mean "the broker confirmed it stored the message". If the
// process dies after the mark, or the broker fails, the message is never
// sent again, because it already counts as sent. It is lost, and the outbox
// says otherwise.
//
// Chapter 004, typical mistakes ("Zu früh markiert: ... sendet der
// Versandprozess den Eintrag nie wieder, weil der Eintrag schon als gesendet
// markiert ist. Die Nachricht ist verloren."); chapter 000 section 5.
func MarkBeforeSend() variant.Variant {
	return variant.Variant{
		Name:    "mark-before-send",
		Summary: lang.Text{EN: "marks a message SENT before the broker confirmed it", DE: "markiert eine Nachricht als SENT, bevor der Broker sie bestätigt hat"},
		Chapter: "004 \"Zu früh markiert\"",
		Expect: map[string]variant.Outcome{
			"relay.after-mark":        variant.Lost,
			"broker-outage":           variant.Lost,
			"outage-backlog":          variant.Lost,
			"rejected":                variant.Lost,
			"publish-timeout-dropped": variant.Lost, // marked SENT, then the send went nowhere
			"relay-restart":           variant.Lost, // killed between its mark and its send
			"relay-lost":              variant.Lost, // lost between its mark and its send
			"stall-outage":            variant.Lost, // marked SENT, frozen, then the broker is down
			"stall-release":           variant.Lost, // the same: marked SENT, frozen, the send fails
			// A row marked before it is sent lets its aggregate's next
			// event overtake it: relay-1 marked o-2#1 SENT and froze
			// (or paused, or is slower) before its send, and relay-2,
			// which holds an aggregate back only behind rows not yet
			// SENT, sends o-2#2 first (labrun-real verify finds the
			// same on real parts).
			"stall":                variant.OutOfOrder,
			"clock-skew":           variant.OutOfOrder,
			"service.after-commit": variant.OutOfOrder, // with two relays: o-1#3 goes while #2 is marked, not yet sent
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			r, err := newRelay(env, nil)
			if err != nil {
				return nil, err
			}
			return &markBeforeSendRelay{r}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

type markBeforeSendRelay struct{ *relay }

// Step implements variant.Relay with step.
func (r *markBeforeSendRelay) Step() (bool, error) {
	rep, err := r.step()
	return rep.Did(), err
}

// step is outbox.Relay.Step with the mark before the send. DO NOT COPY.
func (r *markBeforeSendRelay) step() (outbox.StepReport, error) {
	var rep outbox.StepReport
	if r.Clock.Now().Before(r.pausedUntil) {
		return rep, nil // the broker failed recently: do not hammer it
	}
	batch, err := r.claim()
	if err != nil {
		return rep, err
	}
	rep.Claimed = len(batch)
	for i, m := range batch {
		// MISTAKE: SENT is recorded before the broker has the message: a
		// crash or a broker failure after this commit loses it, and the
		// row says SENT (a failure recorded below finds SENT and changes
		// nothing).
		r.failedSteps = 0
		lost, err := r.recordSent(m)
		if err != nil {
			return rep, err
		}
		if lost {
			rep.LeaseLost++
		} else {
			rep.Sent++
		}
		err = r.Gate.Cross(outbox.BoundarySend, func() error {
			return r.Broker.Publish(broker.Envelope{ID: m.ID, Event: m.Event})
		})
		if errors.Is(err, effect.ErrCrashed) {
			return rep, fmt.Errorf("outbox: send %s: %w", m.ID, err)
		}
		if err != nil {
			dead, released, err := r.recordFailure(m, err, batch[i+1:])
			if err != nil {
				return rep, err
			}
			rep.Failed++
			rep.Released += released
			if dead {
				rep.DeadLettered++
			}
			r.failedSteps++
			r.pausedUntil = r.Clock.Now().Add(r.cfg.Pause(r.failedSteps))
			rep.PausedUntil = r.pausedUntil
			return rep, nil
		}
	}
	return rep, nil
}
