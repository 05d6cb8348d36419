package varianttest

import (
	"errors"
	"time"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/store"
	"outboxlab/variant"
)

// consumerSlip names what the consumer frame does wrong; "" is nothing.
type consumerSlip struct{ name string }

// consumerSlips are the consumer frame's slips.
func consumerSlips() []Slip {
	return slipsOf("consumer", [][2]string{
		{"bills-amendments-as-zero", "bills an amendment's line with a zero amount"},
		{"drops-its-nacks", "neither acknowledges nor hands back a delivery whose commit failed"},
		{"swallows-commit-errors", "logs the error of a delivery and goes on"},
		{"swallows-its-crash", "takes a delivery that returned effect.ErrCrashed for one it can log"},
		{"gives-up-at-once", "puts a message aside as a dead letter at its first failure"},
		{"panics-on-a-cancel", "panics on a cancellation it was never taught"},
	}, func(name string, from int) variant.Variant {
		v := variant.Outbox()
		v.NewConsumer = newConsumer(consumerSlip{name}, from)
		return v
	})
}

// newConsumer builds the consumer frame, the reference inbox consumer
// with billing's effect, with slip acting from its from-th occasion on.
func newConsumer(slip consumerSlip, from int) func(variant.Env) (variant.Consumer, error) {
	return func(env variant.Env) (variant.Consumer, error) {
		c := &consumer{slip: slip, occasions: occasions{from: from}}
		cfg := inbox.DefaultConfig(env.Owner, variant.Subscription)
		if slip.name == "gives-up-at-once" {
			cfg.MaxAttempts = 1
		}
		deps := inbox.Deps{DB: env.BillingDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Effect: c.apply}
		if slip.name == "drops-its-nacks" {
			deps.Broker = dropsNacks{Broker: env.Broker, c: c}
		}
		ref, err := inbox.NewConsumer(cfg, deps)
		c.Consumer = ref
		return c, err
	}
}

// consumer is the reference consumer around the learner's effect.
type consumer struct {
	variant.Consumer
	slip      consumerSlip
	occasions occasions
}

func (c *consumer) slipped(s string) bool { return c.slip.name == s && c.occasions.now() }

func (c *consumer) Step() (bool, error) {
	did, err := c.Consumer.Step()
	switch {
	case err == nil:
	case errors.Is(err, effect.ErrCrashed) && c.slipped("swallows-its-crash"):
		return did, nil
	case !errors.Is(err, effect.ErrCrashed) && c.slipped("swallows-commit-errors"):
		return did, nil
	}
	return did, err
}

// apply is billing's effect, the learner's.
func (c *consumer) apply(tx *store.Tx, e domain.Event, messageID string, now time.Time) error {
	switch e := e.(type) {
	case domain.OrderAmended:
		if c.slipped("bills-amendments-as-zero") {
			e.Amount = domain.Money{Currency: e.Amount.Currency}
			return billing.ApplyEffect(tx, e, messageID, now)
		}
	case domain.OrderCancelled:
		if c.slipped("panics-on-a-cancel") {
			panic("TODO: cancellations")
		}
	}
	return billing.ApplyEffect(tx, e, messageID, now)
}

// dropsNacks is the broker as the consumer sees it, with every hand-back
// dropped once the slip acts.
type dropsNacks struct {
	*broker.Broker
	c *consumer
}

func (d dropsNacks) Nack(subscription string, tag uint64) error {
	if d.c.slipped("drops-its-nacks") {
		return nil
	}
	return d.Broker.Nack(subscription, tag)
}
