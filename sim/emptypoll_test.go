package sim_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"outboxlab/billing"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/internal/longtest"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// blindPoll is a learner's billing consumer that takes whatever Receive
// hands it without looking whether there was a delivery at all (it keeps
// no per-order sequence either, which the reorder row would show). Every
// delivery it does get it applies once (inbox row and effect in one
// transaction) and acknowledges, and one whose commit failed it hands
// back.
type blindPoll struct{ env variant.Env }

func (c blindPoll) Step() (bool, error) {
	d, _ := c.env.Broker.Receive(variant.Subscription) // the slip: ok ignored
	event, err := domain.Decode(d.Envelope.Event)
	if err != nil {
		return true, fmt.Errorf("billing: decode %q: %w", d.Envelope.ID, err)
	}
	tx := c.env.BillingDB.Begin(c.env.Owner)
	defer tx.Rollback()
	if _, done := tx.Get(inbox.TableProcessed, d.Envelope.ID); !done {
		if err := billing.ApplyEffect(tx, event, d.Envelope.ID, c.env.Clock.Now()); err != nil {
			return true, err
		}
		tx.Put(inbox.TableProcessed, d.Envelope.ID, inbox.Processed{MessageID: d.Envelope.ID, At: c.env.Clock.Now()})
		if err := c.env.Gate.Cross(effect.Boundary{Process: "consumer", Effect: "commit"}, tx.Commit); err != nil {
			return true, errors.Join(err, c.env.Broker.Nack(variant.Subscription, d.Tag)) // it comes again
		}
	}
	return true, c.env.Gate.Cross(effect.Boundary{Process: "consumer", Effect: "ack"}, func() error {
		return c.env.Broker.Ack(variant.Subscription, d.Tag)
	})
}

func (blindPoll) ReplayDeadLetters() (int, error) { return 0, nil }

// TestAConsumerThatHandlesAnEmptyPollIsCaught: the simulator wakes billing
// when a delivery waits, and once more when it starts, as a consumer polls
// whether or not anything is there. A consumer that takes an empty poll for
// a delivery returns an error there, which the failure sweep reports (grade
// prints it); every delivery it really gets it handles right, so without
// the empty poll nothing showed it.
func TestAConsumerThatHandlesAnEmptyPollIsCaught(t *testing.T) {
	longtest.Only(t, "long_caught", "TestARelayThatSwallowsAFailedCommitIsCaught")
	v := variant.Outbox()
	v.Name = "blind-poll"
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) { return blindPoll{env}, nil }
	res, err := sim.Run(sim.DefaultConfig(v, scenarios.Workload(), 1))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome.String() != "OK" {
		t.Errorf("outcome %s, want OK (every real delivery is handled): %v", res.Outcome, res.Violations)
	}
	if len(res.Unhandled) == 0 || !strings.Contains(res.Unhandled[0], "billing: an empty poll: billing: decode \"\"") {
		t.Errorf("unhandled %q, want billing's empty poll", res.Unhandled)
	}
	sw, err := scenarios.Matrix().FailureSweep(v)
	if err != nil {
		t.Fatal(err)
	}
	reported := false
	for _, f := range sw.Failures {
		reported = reported || len(f.Unhandled) > 0 && strings.Contains(f.Unhandled[0], "an empty poll")
	}
	if !reported {
		t.Errorf("the failure sweep reports no empty poll in %d failure(s)", len(sw.Failures))
	}
}
