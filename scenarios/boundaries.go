package scenarios

import (
	"outboxlab/alternatives/cdc"
	"outboxlab/alternatives/listen"
	"outboxlab/alternatives/synccall"
	"outboxlab/alternatives/twophase"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/mistakes"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/sim"
)

// The catalogue of effect boundaries lives here, above the simulator:
// sim imports no variant, mistake or alternative, and takes the commit
// boundaries a failure may strike from its caller (sim.Matrix's
// CommitBoundaries, sim.Known for a story's fault).

// BoundarySpec is one effect boundary a component declares, as the lab
// knows it, and the entry of its two crash points (effect.Boundary's
// Before and After): the component's own declaration (its process, its
// effect and its Kind: a commit, a send, an ack, a call); whether
// exploration crashes at its two points, or why not; and which of them
// are rows of the matrix, with what happens there. The crash points
// exploration draws from (DrawnBoundaries), the boundaries a
// commit-failure fault can strike (CommitBoundaries) and the matrix's
// crash rows (CrashPoints) are derived from it.
//
// A crash asks nothing of the policies' budgets by its point: every crash,
// wherever it fires, is one interruption of its run (sim counts them), so
// an entry has no budget of its own.
type BoundarySpec struct {
	effect.Boundary
	// NotDrawn says why exploration does not crash at the boundary's
	// points ("" if it draws both).
	NotDrawn string
	// BeforeRow and AfterRow are the matrix's crash rows at the
	// boundary's two points, nil where the matrix has none: exploration
	// and the sweeps crash there all the same, a story file can, and
	// labrun scenario plays it (as P@k), but no row of the matrix is.
	BeforeRow, AfterRow *CrashRow
}

// CrashRow is a crash point's row of the matrix: what happens there, in
// both languages, and the situations the row exists to produce (a
// recovery that releases a claim, a message billing receives twice).
type CrashRow struct {
	Text       lang.Text
	Situations []sim.Situation
}

// rows returns s's crash rows, its before's first.
func (s BoundarySpec) rows() []sim.Point {
	var out []sim.Point
	if s.BeforeRow != nil {
		out = append(out, s.BeforeRow.point(s.Before()))
	}
	if s.AfterRow != nil {
		out = append(out, s.AfterRow.point(s.After()))
	}
	return out
}

// point is r as the row of crash point id.
func (r CrashRow) point(id string) sim.Point {
	return sim.Point{ID: id, Kind: sim.KindCrash, Description: r.Text, Situations: r.Situations}
}

// Why exploration does not draw a boundary.
const (
	// Exploration's schedules crash and fail commits only in the run's
	// first phase; these effects happen in the operator's phase after it
	// (or at a story's cleanup line), where nothing would fire.
	operatorOnly = "the operator's work after quiesce, when no crash or commit failure fires: a point drawn there would never fire"
	// The extras are not columns of the matrix; exploration draws crash
	// points by index into one list for every variant, so a point added
	// to it changes every seed's schedule. The double-crash sweep crashes
	// at them (TestTheTwoPhaseCommitsOwnPointsAreCrashedAt).
	extraOnly = "crossed only by an extra variant (scenarios.Extras): exploration's one list of points, drawn by index, would change every seed with it; the double-crash sweep crashes there"
	// Exploration draws by index into its list of points: a point added
	// to it changes every seed's schedule, and every golden.
	drawnFixed = "exploration's draw was fixed before it was declared, and draws by index: a point added to it changes every seed's schedule and every golden (the consumer's own count-failure, the same code, is drawn)"
)

// boundaries are every boundary the lab's components declare, each by the
// component's exported name, with its crash points' rows of the matrix:
// the crash points of DESIGN.md and those the mistakes add, in the order
// of the matrix's crash rows (a message's life; a row added to a boundary
// takes its boundary's place). Exploration draws the points of those it
// draws in this order, by index (process by process, each in a message's
// order of life): a boundary drawn must go at the end of the drawn ones,
// and only with every exploration golden written anew. Each boundary is
// declared once, by one component, and has one entry here: a component
// that crosses another's boundary (the CDC connector's publish is the
// outbox relay's relay.send) crosses its variable. A component's new
// boundary is added here, drawn or saying why not;
// TestEveryBoundaryIsClassified fails until it is, and when a boundary
// has two entries or two declarations.
var boundaries = []BoundarySpec{
	{Boundary: orders.BoundaryCommit,
		BeforeRow: &CrashRow{Text: lang.Text{
			EN: "the service dies with the order and its outbox row written, not committed",
			DE: "der Service stirbt, nachdem er Bestellung und Outbox-Zeile geschrieben, aber noch nicht committet hat",
		}},
		AfterRow: &CrashRow{Text: lang.Text{
			EN: "the service dies right after its commit",
			DE: "der Service stirbt direkt nach seinem Commit",
		}}},
	// publish-first, dual-write, listen-to-yourself
	{Boundary: listen.BoundaryPublish,
		AfterRow: &CrashRow{Text: lang.Text{
			EN: "a service that publishes itself dies right after the publish",
			DE: "ein Service, der selbst veröffentlicht, stirbt direkt nach dem Veröffentlichen",
		}}},
	{Boundary: mistakes.BoundaryOutboxCommit},
	{Boundary: twophase.BoundaryPrepare, NotDrawn: extraOnly},
	{Boundary: twophase.BoundaryCommitMessage, NotDrawn: extraOnly},
	{Boundary: twophase.BoundaryAbort, NotDrawn: extraOnly},
	{Boundary: synccall.BoundaryCall, NotDrawn: extraOnly},

	{Boundary: outbox.BoundaryRecover},
	{Boundary: outbox.BoundaryClaim,
		AfterRow: &CrashRow{Text: lang.Text{
			EN: "a relay dies holding its claims (IN_FLIGHT, under a lease)",
			DE: "ein Relay stirbt mit seinen Claims (IN_FLIGHT, unter einer Lease)",
		}, Situations: []sim.Situation{sim.ClaimReleased}}},
	{Boundary: outbox.BoundarySend,
		AfterRow: &CrashRow{Text: lang.Text{
			EN: "a relay dies after the broker's ack, before it records SENT",
			DE: "ein Relay stirbt nach dem Ack des Brokers, bevor es SENT einträgt",
		}, Situations: []sim.Situation{sim.Redelivered}}},
	{Boundary: outbox.BoundaryMark,
		// The mark's transaction is written, its commit does not
		// happen: chapter 003's "schlägt aber der Commit von
		// processed_at fehl".
		BeforeRow: &CrashRow{Text: lang.Text{
			EN: "a relay dies with its mark written, not committed",
			DE: "ein Relay stirbt, nachdem es seine Markierung geschrieben, aber noch nicht committet hat",
		}, Situations: []sim.Situation{sim.Redelivered}},
		// mark-before-send marks before it sends
		AfterRow: &CrashRow{Text: lang.Text{
			EN: "a relay dies right after it recorded an outcome",
			DE: "ein Relay stirbt, direkt nachdem es ein Ergebnis eingetragen hat",
		}}},
	{Boundary: cdc.BoundaryOffset},
	{Boundary: outbox.BoundaryReplay, NotDrawn: operatorOnly},
	{Boundary: outbox.BoundaryCleanup, NotDrawn: operatorOnly},
	{Boundary: twophase.BoundaryDecide, NotDrawn: extraOnly},
	{Boundary: twophase.BoundaryResolve, NotDrawn: extraOnly},

	{Boundary: listen.AsListener(inbox.BoundaryCommit)},
	{Boundary: listen.AsListener(inbox.BoundaryAck)},
	{Boundary: listen.AsListener(inbox.BoundaryFailure), NotDrawn: drawnFixed},
	{Boundary: listen.AsListener(inbox.BoundaryReplay), NotDrawn: operatorOnly},

	{Boundary: inbox.BoundaryCommit,
		BeforeRow: &CrashRow{Text: lang.Text{
			EN: "billing dies with the invoice and the inbox row written, not committed",
			DE: "Billing stirbt, nachdem es Rechnung und Inbox-Zeile geschrieben, aber noch nicht committet hat",
		}, Situations: []sim.Situation{sim.Redelivered}},
		AfterRow: &CrashRow{Text: lang.Text{
			EN: "billing dies after its commit, before the ack",
			DE: "Billing stirbt nach seinem Commit, vor dem Ack",
		}, Situations: []sim.Situation{sim.Redelivered}}},
	{Boundary: inbox.BoundaryAck},
	{Boundary: inbox.BoundaryFailure},
	{Boundary: mistakes.BoundaryRecordProcessed},
	{Boundary: inbox.BoundaryReplay, NotDrawn: operatorOnly},
}

// Boundaries returns every boundary the lab's components declare, as
// the lab classifies them, in the order exploration draws from.
func Boundaries() []BoundarySpec { return append([]BoundarySpec(nil), boundaries...) }

// crashRows returns the matrix's crash rows, in the registry's order.
func crashRows() []sim.Point {
	var out []sim.Point
	for _, s := range boundaries {
		out = append(out, s.rows()...)
	}
	return out
}

// CrashPoints are the matrix's crash rows' points, in their order.
var CrashPoints = func() []string {
	var ids []string
	for _, p := range crashRows() {
		ids = append(ids, p.ID)
	}
	return ids
}()

// DrawnBoundaries returns the boundaries exploration crashes at, in the
// order it draws them.
func DrawnBoundaries() []effect.Boundary {
	var out []effect.Boundary
	for _, s := range boundaries {
		if s.NotDrawn == "" {
			out = append(out, s.Boundary)
		}
	}
	return out
}

// CommitBoundaries are the boundaries exploration draws whose effect is a
// database commit (effect.Commit), every variant's, in its order: where a
// commit-failure fault can strike, and what exploration draws it at.
var CommitBoundaries = func() []string {
	var out []string
	for _, b := range DrawnBoundaries() {
		if b.Kind == effect.Commit {
			out = append(out, b.String())
		}
	}
	return out
}()

// known is what the simulator is told a story's faults may name.
var known = sim.Known{CommitBoundaries: CommitBoundaries}
