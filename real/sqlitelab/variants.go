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
	// claimWithoutLock: a relay that claims rows it read without a lock.
	claimWithoutLock bool
	// cdc: the relay reads the outbox's inserts from PostgreSQL's WAL (a
	// variant of PostgreSQL's only).
	cdc bool
	// race: the variant's verdict on real parts depends on how two
	// processes' statements interleave, which a kill at a crash point does
	// not decide; the differential matrix leaves it out (see pglab's tests).
	race bool
	// consumerMistake is "" for the reference consumer.
	consumerMistake string
	// cdcStep replaces the CDC relay's step when set (a test's broken
	// port).
	cdcStep func(*cdcRelay) (bool, error)
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
	{Name: "cdc", handle: (*service).handleCDC, cdc: true},
	{Name: "claim-without-lock", handle: (*service).handle, claimWithoutLock: true, race: true},
}

// VariantNames lists the variants the real parts express with a verdict a
// crash point decides, on SQLite: the matrix's variants. (Run runs
// claim-without-lock too, whose verdict is a race's.)
func VariantNames() []string { return MatrixVariants(false) }

// MatrixVariants lists the matrix's variants with the order database on
// PostgreSQL (onPostgres: cdc too, whose relay reads PostgreSQL's WAL) or
// on SQLite.
func MatrixVariants(onPostgres bool) []string {
	var names []string
	for _, v := range variants {
		if !v.race && (onPostgres || !v.cdc) {
			names = append(names, v.Name)
		}
	}
	return names
}

// ErrUnknown is wrapped by the error about a variant or crash point the
// real parts do not know; its text starts the message ("unknown variant
// ...").
var ErrUnknown = errors.New("unknown")

// ErrNotInMatrix is wrapped by the error about a variant that cannot run
// as asked: in the matrix, one whose verdict is a race's
// (claim-without-lock); on SQLite, the relay that reads PostgreSQL's WAL
// (cdc).
var ErrNotInMatrix = errors.New("not in the matrix")

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
	var all []string
	for _, v := range variants {
		all = append(all, v.Name)
	}
	return Variant{}, fmt.Errorf("%w variant %q (the real parts run: %s)", ErrUnknown, name, strings.Join(all, ", "))
}
