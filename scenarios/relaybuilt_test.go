package scenarios_test

import (
	"fmt"
	"slices"
	"testing"

	"outboxlab/scenarios"
	"outboxlab/variant"
)

// relayOrError returns what is wrong with what v's NewRelay returns for
// an environment no relay can be built from (no database, no broker): a
// relay beside the error, such as an adapter around no relay, which a
// caller that looks at the relay first steps into.
func relayOrError(v variant.Variant) error {
	if v.NewRelay == nil {
		return nil // a variant without a relay (dual-write publishes from the service)
	}
	r, err := v.NewRelay(variant.Env{Owner: "relay-1"})
	if err != nil && r != nil {
		return fmt.Errorf("%s: NewRelay returned the relay %#v beside the error %v: want no relay (nil) with an error", v.Name, r, err)
	}
	return nil
}

// TestNoRelayBesideAnError: every variant of the lab that cannot build its
// relay returns an error and no relay; the sites that returned
// `variant.AdaptRelay(r), err` held a non-nil relay around a nil one.
func TestNoRelayBesideAnError(t *testing.T) {
	for _, v := range slices.Concat(scenarios.Variants(), scenarios.Extras(), scenarios.StoryVariants()) {
		if err := relayOrError(v); err != nil {
			t.Error(err)
		}
	}
}

// TestRelayOrErrorFindsAnAdapterOfNoRelay: the check fails on the two
// shapes the lab had, an adapter (now nil) returned as a Relay beside the
// error, and a relay of a learner's that embeds it.
func TestRelayOrErrorFindsAnAdapterOfNoRelay(t *testing.T) {
	adapted := variant.Outbox()
	adapted.Name = "adapter-beside-error"
	adapted.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := variant.ReferenceRelay(env, nil)
		return variant.AdaptRelay(r), err
	}
	embedded := variant.Outbox()
	embedded.Name = "embedded-beside-error"
	embedded.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := variant.ReferenceRelay(env, nil)
		return learnersRelay{variant.AdaptRelay(r)}, err
	}
	for _, v := range []variant.Variant{adapted, embedded} {
		if relayOrError(v) == nil {
			t.Errorf("%s: relayOrError found nothing wrong", v.Name)
		}
	}
}

// learnersRelay is a learner's relay on the reference's adapter.
type learnersRelay struct{ *variant.RelayAdapter }
