package sim_test

import (
	"testing"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/inbox"
	"outboxlab/scenarios"
	"outboxlab/variant"
)

// readsAsV1 is a consumer's source that takes every version of a
// contract for version 1: a consumer that reads what it does not know as
// what it knows, instead of putting it aside.
type readsAsV1 struct{ inbox.Source }

func (r readsAsV1) Receive(subscription string) (broker.Delivery, bool) {
	d, ok := r.Source.Receive(subscription)
	if ok && d.Envelope.Event.Version == broker.UnknownVersion {
		d.Envelope.Event.Version = 1
	}
	return d, ok
}

// TestAConsumerThatReadsAnUnknownVersionAsKnownIsAMismatch: the
// unknown-contract fault changed only the version's number, so a consumer
// that read it as version 1 booked the right amount and passed; the
// version it delivers now carries its amounts in cents, as a changed
// contract changes what its fields mean, and the misreading consumer
// books a hundred times the amount: MISMATCH. The reference parks it and
// applies the original after its upgrade: OK.
func TestAConsumerThatReadsAnUnknownVersionAsKnownIsAMismatch(t *testing.T) {
	p, err := scenarios.FindPoint("unknown-contract")
	if err != nil {
		t.Fatal(err)
	}
	broken := variant.Outbox()
	broken.Name = "reads-unknown-version-as-v1"
	broken.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		return inbox.NewConsumer(inbox.DefaultConfig(env.Owner, variant.Subscription),
			inbox.Deps{DB: env.BillingDB, Broker: readsAsV1{env.Broker}, Gate: env.Gate, Clock: env.Clock, Effect: billing.ApplyEffect})
	}
	for _, c := range []struct {
		v    variant.Variant
		want variant.Outcome
	}{{broken, variant.Mismatch}, {variant.Outbox(), variant.OK}} {
		cell, err := scenarios.Matrix().RunCell(c.v, p)
		if err != nil {
			t.Fatal(err)
		}
		if cell.Outcome != c.want {
			t.Errorf("%s at unknown-contract: %s, want %s: %v", c.v.Name, cell.Outcome, c.want, cell.Violations)
		}
	}
}
