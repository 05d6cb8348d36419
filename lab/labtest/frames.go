package labtest

import (
	"outboxlab/billing"
	"outboxlab/inbox"
	"outboxlab/outbox"
	"outboxlab/variant"
)

// WithConsumerEffect is the reference with billing's effect replaced.
func WithConsumerEffect(name string, effect inbox.Effect) variant.Variant {
	v := variant.Outbox()
	v.Name = name
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		return inbox.NewConsumer(inbox.DefaultConfig(env.Owner, variant.Subscription),
			inbox.Deps{DB: env.BillingDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Effect: effect})
	}
	return v
}

// WithConsumerConfig is the reference with billing's consumer configured
// otherwise.
func WithConsumerConfig(name string, change func(*inbox.Config)) variant.Variant {
	v := variant.Outbox()
	v.Name = name
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		cfg := inbox.DefaultConfig(env.Owner, variant.Subscription)
		change(&cfg)
		return inbox.NewConsumer(cfg, inbox.Deps{DB: env.BillingDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Effect: billing.ApplyEffect})
	}
	return v
}

// WithRelayConfig is the reference with its relay's configuration
// changed.
func WithRelayConfig(name string, change func(*outbox.Config)) variant.Variant {
	v := variant.Outbox()
	v.Name = name
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := variant.ReferenceRelay(env, change)
		if err != nil {
			return nil, err
		}
		return variant.AdaptRelay(r), nil
	}
	return v
}

// Declaring is v declaring the policy of the reference relay configured
// with change.
func Declaring(v variant.Variant, change func(*outbox.Config)) variant.Variant {
	cfg := outbox.DefaultConfig("relay")
	change(&cfg)
	v.Policy.Relay = variant.RelayPolicyOf(cfg)
	return v
}

// Honest is the reference relay configured with change, declaring what
// it does.
func Honest(name string, change func(*outbox.Config)) variant.Variant {
	return Declaring(WithRelayConfig(name, change), change)
}
