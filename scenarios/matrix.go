package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"outboxlab/alternatives/cdc"
	"outboxlab/alternatives/gapfetch"
	"outboxlab/alternatives/gapsnapshot"
	"outboxlab/alternatives/legacycdc"
	"outboxlab/alternatives/listen"
	"outboxlab/alternatives/skiplocked"
	"outboxlab/alternatives/synccall"
	"outboxlab/alternatives/twophase"
	"outboxlab/domain"
	"outboxlab/lang"
	"outboxlab/mistakes"
	"outboxlab/orders"
	"outboxlab/sim"
	"outboxlab/variant"
)

// MatrixSeed is the seed of every run of the default matrix.
const MatrixSeed = 1

// Workload is the standard matrix workload: three orders in three
// currencies, so that every event kind, two amendments whose amounts
// differ, and per-order sequences of length one, two and three are in
// play, and the easy assumptions about money are each contradicted by one
// run: o-1 (19.99 EUR, amended by a second 19.99 and by 0.10) sums cents
// that floating point gets wrong (19.99 + 19.99 is 39.97 in float64 cents,
// truncated); o-2 is in US dollars and cancelled, and an amendment after
// its cancel is refused by the service; o-3 is in yen, a currency without
// cents.
func Workload() []sim.Command {
	money := func(amount, currency string) domain.Money { return domain.MustMoney(amount, currency) }
	return []sim.Command{
		{At: 0, Command: orders.Command{Kind: orders.Place, OrderID: "o-1", Amount: money("19.99", "EUR")}},
		{At: 1 * time.Second, Command: orders.Command{Kind: orders.Place, OrderID: "o-2", Amount: money("25.00", "USD")}},
		{At: 2 * time.Second, Command: orders.Command{Kind: orders.Amend, OrderID: "o-1", Amount: money("19.99", "EUR"), Text: "second copy"}},
		{At: 3 * time.Second, Command: orders.Command{Kind: orders.Place, OrderID: "o-3", Amount: money("1200", "JPY")}},
		{At: 4 * time.Second, Command: orders.Command{Kind: orders.Amend, OrderID: "o-1", Amount: money("0.10", "EUR"), Text: "gift wrap"}},
		{At: 5 * time.Second, Command: orders.Command{Kind: orders.Cancel, OrderID: "o-2", Text: "customer changed mind"}},
		{At: 6 * time.Second, Command: orders.Command{Kind: orders.Amend, OrderID: "o-2", Amount: money("5.00", "USD"), Text: "after the cancel"}},
	}
}

// Points returns the rows of the default matrix: every crash row (the
// boundary registry's, in its order), then every fault row, aimed at the
// standard workload (each declared in its fault kind's sim.FaultSpec, in
// the order of their columns: sim.FaultRows).
func Points() []sim.Point {
	return append(crashRows(), sim.FaultRows()...)
}

// Variants returns every variant of the matrix: the reference first, then
// the mistakes.
func Variants() []variant.Variant {
	registered.Lock()
	defer registered.Unlock()
	return append(builtIn(), registered.variants...)
}

// registered are the variants a course's labrun adds (Register).
var registered struct {
	sync.Mutex
	variants []variant.Variant
}

// Register adds variants to Variants, and so to the matrix, the stories
// and every labrun command: a course's own labrun registers its learners'
// variants (see cli.Lab). Registering a variant again under its name
// changes nothing; a name the lab already uses for another variant, or a
// variant that does not validate, is an error.
func Register(vs ...variant.Variant) error {
	registered.Lock()
	defer registered.Unlock()
	for _, v := range vs {
		if err := v.Validate(); err != nil {
			return err
		}
		taken := false
		for _, b := range append(builtIn(), registered.variants...) {
			taken = taken || b.Name == v.Name
		}
		if taken {
			if !slices.ContainsFunc(registered.variants, func(r variant.Variant) bool { return r.Name == v.Name }) {
				return fmt.Errorf("register %s: the lab has a variant of that name (see labrun list)", v.Name)
			}
			continue
		}
		registered.variants = append(registered.variants, v)
	}
	return nil
}

// builtIn returns the lab's own variants.
func builtIn() []variant.Variant {
	return []variant.Variant{
		variant.Outbox(),
		listen.Variant(),
		cdc.Variant(),
		mistakes.DualWrite(),
		mistakes.PublishFirst(),
		mistakes.SeparateTx(),
		mistakes.MarkBeforeSend(),
		mistakes.NoInflightRecovery(),
		mistakes.NoRetryLimit(),
		mistakes.NonIdempotentConsumer(),
		mistakes.DedupOutsideTx(),
		mistakes.UnorderedConsumer(),
		mistakes.MaxVersionOnly(),
		mistakes.NoFencing(),
		mistakes.CleanupByAge(),
		mistakes.RecoverAll(),
		mistakes.ClaimWithoutLock(),
		mistakes.OffsetByID(),
		mistakes.DualWriteRetry(),
		mistakes.NoBackoff(),
		mistakes.CronRelay(),
		mistakes.NewIDOnResend(),
	}
}

// VariantNames lists the variants' ids, for usage messages.
func VariantNames() []string {
	var names []string
	for _, v := range Variants() {
		names = append(names, v.Name)
	}
	return names
}

// Extras are variants of the orders' workload that are not columns of the
// default matrix: the reference deleting on send, chapter 000's change of
// an event's meaning. `labrun scenario --variant X` plays them, `labrun
// matrix --variant X` grades them, and TestExtraVariantsKeepTheirDeclarations
// holds every cell to what each declares.
func Extras() []variant.Variant {
	return []variant.Variant{
		variant.DeleteOnSend(),
		everywhere(mistakes.GrossToNet(), variant.Mismatch),
		skiplocked.Variant(),
		mistakes.UnindexedOutbox(),
		twophase.Variant(),
		synccall.Variant(),
		mistakes.SyncCallWithoutKey(),
		legacycdc.Variant(),
		gapfetch.Variant(),
		gapsnapshot.Variant(),
		mistakes.ParallelWorkers(),
	}
}

// everywhere declares o at every point of the matrix a variant with the
// reference's service reaches (all but the publishing services'
// service.after-publish): a mistake that shows in every run, whatever the
// fault.
func everywhere(v variant.Variant, o variant.Outcome) variant.Variant {
	v.Expect = map[string]variant.Outcome{}
	for _, p := range Points() {
		if p.ID != "service.after-publish" {
			v.Expect[p.ID] = o
		}
	}
	return v
}

// StoryVariants are the variants that tell one story of the chapters and
// are not columns of the matrix, whose workload is orders: chapter 004's
// claims service and payment service (their workload releases claims).
// Stories and labrun scenario --variant find them; the matrix and
// exploration do not take them.
func StoryVariants() []variant.Variant {
	return []variant.Variant{
		variant.Insurance(),
		mistakes.InsuranceWithoutInbox(),
	}
}

// FindVariant returns the variant with that id: a variant of the matrix,
// or a story's (StoryVariants).
func FindVariant(name string) (variant.Variant, error) {
	for _, v := range slices.Concat(Variants(), Extras(), StoryVariants()) {
		if v.Name == name {
			return v, nil
		}
	}
	var more []string
	for _, v := range slices.Concat(Extras(), StoryVariants()) {
		more = append(more, v.Name)
	}
	return variant.Variant{}, lang.Errorf(lang.Text{
		EN: "unknown variant %q (valid: %s; beyond the matrix: %s)",
		DE: "unbekannte Variante %q (gültig: %s; über die Matrix hinaus: %s)"}, name, strings.Join(VariantNames(), ", "), strings.Join(more, ", "))
}

// IsLabVariant reports whether name is one of the lab's own variants (the
// matrix's columns, the extras, the stories'), not one a course registered.
func IsLabVariant(name string) bool {
	return slices.ContainsFunc(slices.Concat(builtIn(), Extras(), StoryVariants()), func(v variant.Variant) bool { return v.Name == name })
}

// IsStoryVariant reports whether name is a story's variant
// (StoryVariants), which plays its own story's workload and no other.
func IsStoryVariant(name string) bool {
	return slices.ContainsFunc(StoryVariants(), func(v variant.Variant) bool { return v.Name == name })
}

// FindMatrixVariant returns the variant with that id if the matrix's
// workload can run it (a column of the matrix or an extra); a story's
// variant is an error that says so.
func FindMatrixVariant(name string) (variant.Variant, error) {
	v, err := FindVariant(name)
	if err != nil {
		return v, err
	}
	if IsStoryVariant(name) {
		return variant.Variant{}, fmt.Errorf("variant %q tells a story of its own and is not a column of the matrix: play it with `labrun scenario` (valid here: %s)", name, strings.Join(VariantNames(), ", "))
	}
	return v, nil
}

// FindPoint returns the matrix row with that id.
func FindPoint(id string) (sim.Point, error) {
	var ids []string
	for _, p := range Points() {
		if p.ID == id {
			return p, nil
		}
		ids = append(ids, p.ID)
	}
	return sim.Point{}, fmt.Errorf("unknown point %q (valid: %s)", id, strings.Join(ids, ", "))
}

// Matrix is the default crash matrix: the standard workload at every point.
func Matrix() sim.Matrix {
	return sim.Matrix{Workload: Workload(), Seed: MatrixSeed, Points: Points(), FailureRows: []string{"broker-outage", "poison", "stall", "mark-conflict", "failure-conflict", "relay-restart"},
		CommitBoundaries: CommitBoundaries}
}
