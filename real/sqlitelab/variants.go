package sqlitelab

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"outboxlab/orders"
	"outboxlab/variant"
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
	// noFencing: a relay that marks SENT without its lease check.
	noFencing bool
	// recoverAll: a restarted relay releases every IN_FLIGHT message.
	recoverAll bool
	// position: a relay that claims only past a position it keeps.
	position position
	// cdc: the relay reads the outbox's inserts from PostgreSQL's WAL.
	cdc bool
	// postgres: the variant runs on PostgreSQL only (its relay reads the
	// WAL or transaction ids).
	postgres bool
	// sqliteHides says why the SQLite matrix leaves the variant out: its
	// mistake cannot show there ("" for none). It still runs on SQLite.
	sqliteHides string
	// maxRelays is how many relays the variant allows; 0 for any (up to
	// three).
	maxRelays int
	// race reports whether a cell's verdict on real parts depends on how
	// two processes' statements interleave, which no crash point decides:
	// such a cell is run several times and its rate reported (nil: none).
	race func(point string, relays int) bool
	// differs are the cells whose verdict on real parts is declared to
	// differ from the simulator's, and why.
	differs map[string]declared
	// consumerMistake is "" for the reference consumer.
	consumerMistake string
	// cdcStep replaces the CDC relay's step when set (a test's broken
	// port).
	cdcStep func(*cdcRelay) (bool, error)
	// consumerStep replaces billing's step when set (a test's broken
	// harness: see the tests).
	consumerStep func(*consumer) (bool, error)
	// relayStep replaces the relay's step when set (a test's broken port).
	relayStep func(*relay) (bool, error)
	// sim names the simulator's variant the verdicts must equal; "" for
	// Name.
	sim string
}

// declared is a cell's verdict on real parts where it differs from the
// simulator's, with the reason.
type declared struct {
	outcome variant.Outcome
	why     string
}

// simName returns the name of the simulator's variant v must agree with.
func (v Variant) simName() string {
	if v.sim != "" {
		return v.sim
	}
	return v.Name
}

// mostRelays is how many relays the variant allows: maxRelays, or three.
func (v Variant) mostRelays() int {
	if v.maxRelays > 0 {
		return v.maxRelays
	}
	return 3
}

// relays returns the relay counts of counts the variant allows.
func (v Variant) relays(counts []int) []int {
	var out []int
	for _, n := range counts {
		if v.maxRelays == 0 || n <= v.maxRelays {
			out = append(out, n)
		}
	}
	return out
}

// twoRelaysRace is the race of a variant whose mistake shows when two
// relays' claims meet: every cell run with more than one relay.
func twoRelaysRace(_ string, relays int) bool { return relays > 1 }

// overtakeRace is mark-before-send's race with more than one relay around
// the service's crash: whether another relay sends an order's next event
// while one has marked the event before it SENT and not yet sent it (an
// aggregate's order at the broker, OUT_OF_ORDER) is the processes'
// timing; the simulator's interleaving makes it at some of these cells
// and not at others, by the relays and the crash's occurrence (two relays
// at service.after-commit; three at service.before-commit@2, which the
// real parts ran OK in a labrun-real matrix --relays 3 while the
// simulator was OUT_OF_ORDER).
func overtakeRace(point string, relays int) bool {
	return relays > 1 && strings.HasPrefix(point, "service.")
}

// relayRestartRace is recover-all's race: a relay restarted after a crash
// releases every claim, and whether another relay holds a live one at that
// moment is the race.
func relayRestartRace(point string, relays int) bool {
	return relays > 1 && strings.HasPrefix(point, "relay.")
}

// rowLockWins is why publish-first's slow-commit cell differs: the
// simulator's store lets the second of two writers of o-1 commit first and
// refuses the stalled one (first committer wins), so the stalled service's
// published amendment is a phantom with the sequence number of the
// committed one; PostgreSQL's row lock makes the second writer wait for the
// stalled one, and its amendment follows it as #3.
var rowLockWins = declared{variant.OK, "PostgreSQL's row lock makes service-2's amendment of o-1 wait for the stalled service-1, where the simulator's store lets it commit first (first committer wins) and refuses service-1's: service-1's published amendment is then no phantom"}

// variants are the variants the real parts express, in the matrix's order.
var variants = []Variant{
	{Name: "outbox", handle: (*service).handle},
	{Name: "dual-write", handle: (*service).handleDualWrite},
	{Name: "publish-first", handle: (*service).handlePublishFirst, differs: map[string]declared{"slow-commit": rowLockWins}},
	{Name: "separate-tx", handle: (*service).handleSeparateTx},
	{Name: "mark-before-send", handle: (*service).handle, markBeforeSend: true, race: overtakeRace},
	{Name: "no-inflight-recovery", handle: (*service).handle, noRecovery: true},
	{Name: "non-idempotent-consumer", handle: (*service).handle, consumerMistake: "non-idempotent-consumer"},
	{Name: "dedup-outside-tx", handle: (*service).handle, consumerMistake: "dedup-outside-tx"},
	{Name: "no-fencing", handle: (*service).handle, noFencing: true},
	{Name: "recover-all", handle: (*service).handle, recoverAll: true, race: relayRestartRace},
	{Name: "offset-by-id", handle: (*service).handle, position: byID, maxRelays: 1},
	{Name: "cdc", handle: (*service).handleCDC, cdc: true, postgres: true, maxRelays: 1},
	{Name: "claim-without-lock", handle: (*service).handle, claimWithoutLock: true, race: twoRelaysRace,
		sqliteHides: "SQLite's one writer runs the claims one after another, so two relays never claim one message at once there"},
	// The fix of offset-by-id, which the simulator does not have: its
	// verdicts are offset-by-id's but where the fix shows.
	{Name: "offset-by-horizon", sim: "offset-by-id", handle: (*service).handle, position: byHorizon, postgres: true, maxRelays: 1,
		differs: map[string]declared{"slow-commit": {variant.OK, "the relay reads past a transaction-id horizon, pg_snapshot_xmin: it waits for service-1's open transaction instead of passing its id (the fix offset-by-id lacks)"}}},
}

// VariantNames lists the variants of the real matrix on SQLite.
func VariantNames() []string { return MatrixVariants(false) }

// MatrixVariants lists the matrix's variants with the order database on
// PostgreSQL (onPostgres: also those whose relay reads PostgreSQL's WAL or
// transaction ids, and claim-without-lock, whose mistake SQLite's one
// writer hides) or on SQLite.
func MatrixVariants(onPostgres bool) []string {
	var names []string
	for _, v := range variants {
		if onPostgres || (!v.postgres && v.sqliteHides == "") {
			names = append(names, v.Name)
		}
	}
	return names
}

// postgresDefault are the variants the PostgreSQL matrix runs unless it
// runs at full depth: the reference, and those whose verdict PostgreSQL's
// own behaviour decides (its row locks at slow-commit, a fence and a lease
// on a second database engine, SKIP LOCKED, transaction ids, the WAL). The
// others run the reference's relay; their mistakes are the service's or
// billing's or in the relay's order of steps, the SQLite matrix shows them
// on real processes, and MatrixConfig.Full runs them on PostgreSQL too.
var postgresDefault = []string{"outbox", "publish-first", "no-fencing", "recover-all", "offset-by-id", "cdc", "claim-without-lock", "offset-by-horizon"}

// DefaultVariants are the variants a matrix runs when it names none: on
// SQLite, every variant of its matrix; on PostgreSQL, those whose verdict
// PostgreSQL decides, or every one at full depth.
func DefaultVariants(onPostgres, full bool) []string {
	if onPostgres && !full {
		return slices.Clone(postgresDefault)
	}
	return MatrixVariants(onPostgres)
}

// ErrUnknown is wrapped by the error about a variant or crash point the
// real parts do not know; its text starts the message ("unknown variant
// ...").
var ErrUnknown = errors.New("unknown")

// ErrNotInMatrix is wrapped by the error about a variant that cannot run
// as asked: on SQLite, one that runs on PostgreSQL only (cdc,
// offset-by-horizon), and, in the SQLite matrix, one whose mistake SQLite
// hides (claim-without-lock).
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
