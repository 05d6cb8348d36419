package sqlitelab

import (
	"errors"
	"fmt"
	"strings"

	"outboxlab/orders"
)

// Variant is one of the lab's variants as the real parts run it: the
// reference, or the reference with the one change of a mistake, under the
// simulator's name.
type Variant struct {
	Name string
	// handle is the service's use case.
	handle func(*service, orders.Command) error
	// markBeforeSend records SENT before the publish.
	markBeforeSend bool
	// noRecovery: a relay that recovers nothing after a restart and whose
	// claims have no lease that could expire.
	noRecovery bool
	// consumerMistake is "" for the reference consumer.
	consumerMistake string
	// consumerStep replaces billing's step when set (a test's broken
	// harness: see the tests).
	consumerStep func(*consumer) (bool, error)
	// sim names the simulator's variant the verdicts must equal; "" for
	// Name.
	sim string
}

// simName returns the name of the simulator's variant v must agree with.
func (v Variant) simName() string {
	if v.sim != "" {
		return v.sim
	}
	return v.Name
}

// variants are the variants the real parts express, in the matrix's order.
var variants = []Variant{
	{Name: "outbox", handle: (*service).handle},
	{Name: "dual-write", handle: (*service).handleDualWrite},
	{Name: "publish-first", handle: (*service).handlePublishFirst},
	{Name: "separate-tx", handle: (*service).handleSeparateTx},
	{Name: "mark-before-send", handle: (*service).handle, markBeforeSend: true},
	{Name: "no-inflight-recovery", handle: (*service).handle, noRecovery: true},
	{Name: "non-idempotent-consumer", handle: (*service).handle, consumerMistake: "non-idempotent-consumer"},
	{Name: "dedup-outside-tx", handle: (*service).handle, consumerMistake: "dedup-outside-tx"},
}

// VariantNames lists the variants the real parts express.
func VariantNames() []string {
	var names []string
	for _, v := range variants {
		names = append(names, v.Name)
	}
	return names
}

// ErrUnknown is wrapped by the error about a variant or crash point the
// real parts do not know; its text starts the message ("unknown variant
// ...").
var ErrUnknown = errors.New("unknown")

// testVariants are variants only a test adds (before Child runs, so that
// its children know them too).
var testVariants []Variant

// FindVariant returns the variant with that name.
func FindVariant(name string) (Variant, error) {
	for _, v := range append(variants, testVariants...) {
		if v.Name == name {
			return v, nil
		}
	}
	return Variant{}, fmt.Errorf("%w variant %q (the real parts run: %s)", ErrUnknown, name, strings.Join(VariantNames(), ", "))
}
