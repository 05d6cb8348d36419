package sim_test

import (
	"errors"
	"slices"
	"testing"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/internal/longtest"
	"outboxlab/internal/shard"
	"outboxlab/lab/explore"
	"outboxlab/lab/verdict"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// Failures come in bursts: a database that flaps fails the same
// delivery's commit again and again, for billing gets it back at once. A
// consumer that counts failed commits against the message and gives it
// up at the third passed depth course: the failure sweep failed each
// commit once, and exploration drew its failures one by one (three in a
// row of one message's commit, once in 30,000 schedules). The failure
// sweep fails three in a row from each commit (sim.SweepBurst), and
// exploration draws bursts, of one boundary or of one message's commit.

// TestAConsumerThatCountsFailedCommitsIsCaught: GAVE_UP in the failure
// sweep's bursts, never after one failure alone; its long form:
// graded GAVE_UP at depth course, and found by exploration within 3,000
// schedules at three seeds.
func TestAConsumerThatCountsFailedCommitsIsCaught(t *testing.T) {
	v := threeStrikes()
	sw, err := scenarios.Matrix().FailureSweep(v)
	if err != nil {
		t.Fatal(err)
	}
	gaveUp := 0
	for _, f := range sw.Failures {
		if f.Outcome != variant.GaveUp {
			continue
		}
		gaveUp++
		if f.Failure.Burst < sim.SweepBurst {
			t.Errorf("GAVE_UP after %s alone: a single failed commit is not three strikes", f.Failure)
		}
	}
	if gaveUp == 0 {
		t.Fatalf("no GAVE_UP in the failure sweep's %d runs", sw.Runs)
	}
	if !longtest.Long(t, "long_explore") {
		return
	}
	vd, err := verdict.Grade(v, verdict.Options{Depth: verdict.Course})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(vd.Findings, func(f verdict.Finding) bool { return f.Outcome == variant.GaveUp }) {
		t.Errorf("depth course: no GAVE_UP; findings %+v", vd.Findings)
	}
	keep := func(res sim.Result) bool { return res.Outcome == variant.GaveUp }
	for _, seed := range []uint64{1, 5, 108315} {
		part, err := explore.ExploreShard(v, 3000, seed, shard.Shard{I: 1, N: 1}, explore.Options{Keep: keep})
		if err != nil {
			t.Fatal(err)
		}
		if len(part.Broken) == 0 {
			t.Errorf("seed %d: no GAVE_UP in 3000 schedules", seed)
			continue
		}
		t.Logf("seed %d: GAVE_UP first in schedule %d", seed, part.Broken[0])
	}
}

// threeStrikes is the reference consumer that counts the failed commits
// of each message it gets and, at the third, puts the message aside as a
// dead letter, as it would one it cannot process.
func threeStrikes() variant.Variant {
	v := variant.Outbox()
	v.Name = "three-strikes"
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		src := &lastDelivery{Broker: env.Broker}
		c, err := inbox.NewConsumer(inbox.DefaultConfig(env.Owner, variant.Subscription),
			inbox.Deps{DB: env.BillingDB, Broker: src, Gate: env.Gate, Clock: env.Clock, Effect: billing.ApplyEffect})
		return &strikesConsumer{Consumer: c, env: env, src: src, strikes: map[string]int{}}, err
	}
	return v
}

// lastDelivery remembers the delivery the consumer got last.
type lastDelivery struct {
	*broker.Broker
	last broker.Envelope
}

func (l *lastDelivery) Receive(sub string) (broker.Delivery, bool) {
	d, ok := l.Broker.Receive(sub)
	if ok {
		l.last = d.Envelope
	}
	return d, ok
}

type strikesConsumer struct {
	*inbox.Consumer
	env     variant.Env
	src     *lastDelivery
	strikes map[string]int
}

func (c *strikesConsumer) Step() (bool, error) {
	did, err := c.Consumer.Step()
	if err == nil || errors.Is(err, effect.ErrCrashed) {
		return did, err
	}
	e := c.src.last
	c.strikes[e.ID]++
	if c.strikes[e.ID] < 3 {
		return did, err
	}
	// Three strikes: out. The delivery was handed back; the next one
	// finds the dead letter and acknowledges it.
	tx := c.env.BillingDB.Begin(c.env.Owner)
	defer tx.Rollback()
	tx.Put(inbox.TableDead, e.ID, inbox.Parked{Envelope: e, Reason: "three failed commits", At: c.env.Clock.Now()})
	if perr := c.env.Gate.Cross(inbox.BoundaryFailure, tx.Commit); perr != nil {
		return did, errors.Join(err, perr)
	}
	return did, err
}
