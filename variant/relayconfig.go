package variant

import (
	"errors"
	"fmt"

	"outboxlab/outbox"
)

// ErrNotReferenceRelay is returned by WithRelayConfig for a variant whose
// relay is not the reference relay: its policy is in its own code.
var ErrNotReferenceRelay = errors.New("the variant's relay is not the reference relay")

// keepConfig changes nothing: the reference relay as DefaultConfig makes it.
func keepConfig(*outbox.Config) {}

// WithRelayConfig returns v with its relay's configuration changed by
// change, after what v's own RelayConfig changes, and its declared relay
// policy following it, so that the judge's budgets are the changed
// relay's (RelayPolicyOf) and the lab's bounds apply to them
// (check.PolicyFindings). A configuration no relay can have is an error naming
// the field and what is valid (outbox.Config.Validate).
func WithRelayConfig(v Variant, change func(*outbox.Config)) (Variant, error) {
	if v.RelayConfig == nil {
		return v, fmt.Errorf("variant %s: %w", v.Name, ErrNotReferenceRelay)
	}
	base := v.RelayConfig
	both := func(c *outbox.Config) { base(c); change(c) }
	cfg := outbox.DefaultConfig("relay")
	both(&cfg)
	if err := cfg.Validate(); err != nil {
		return v, err
	}
	v.RelayConfig = both
	v.Policy.Relay = RelayPolicyOf(cfg)
	v.NewRelay = func(env Env) (Relay, error) { return adaptedReference(env, both) }
	return v, nil
}
