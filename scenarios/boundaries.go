package scenarios

import (
	"outboxlab/alternatives/cdc"
	"outboxlab/alternatives/listen"
	"outboxlab/alternatives/synccall"
	"outboxlab/alternatives/twophase"
	"outboxlab/effect"
	"outboxlab/inbox"
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
// knows it: the component's own declaration (its process, its effect and
// its Kind: a commit, a send, an ack, a call) and whether exploration
// crashes at its two points, or why not. The crash points exploration
// draws from (DrawnBoundaries) and the boundaries a commit-failure fault
// can strike (CommitBoundaries) are derived from it.
type BoundarySpec struct {
	effect.Boundary
	// NotDrawn says why exploration does not crash at the boundary's
	// points ("" if it draws both).
	NotDrawn string
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
// component's exported name. Exploration draws the points of those it
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
	{Boundary: orders.BoundaryCommit},
	{Boundary: listen.BoundaryPublish},
	{Boundary: mistakes.BoundaryOutboxCommit},
	{Boundary: twophase.BoundaryPrepare, NotDrawn: extraOnly},
	{Boundary: twophase.BoundaryCommitMessage, NotDrawn: extraOnly},
	{Boundary: twophase.BoundaryAbort, NotDrawn: extraOnly},
	{Boundary: synccall.BoundaryCall, NotDrawn: extraOnly},

	{Boundary: outbox.BoundaryRecover},
	{Boundary: outbox.BoundaryClaim},
	{Boundary: outbox.BoundarySend},
	{Boundary: outbox.BoundaryMark},
	{Boundary: cdc.BoundaryOffset},
	{Boundary: outbox.BoundaryReplay, NotDrawn: operatorOnly},
	{Boundary: outbox.BoundaryCleanup, NotDrawn: operatorOnly},
	{Boundary: twophase.BoundaryDecide, NotDrawn: extraOnly},
	{Boundary: twophase.BoundaryResolve, NotDrawn: extraOnly},

	{Boundary: listen.AsListener(inbox.BoundaryCommit)},
	{Boundary: listen.AsListener(inbox.BoundaryAck)},
	{Boundary: listen.AsListener(inbox.BoundaryFailure), NotDrawn: drawnFixed},
	{Boundary: listen.AsListener(inbox.BoundaryReplay), NotDrawn: operatorOnly},

	{Boundary: inbox.BoundaryCommit},
	{Boundary: inbox.BoundaryAck},
	{Boundary: inbox.BoundaryFailure},
	{Boundary: mistakes.BoundaryRecordProcessed},
	{Boundary: inbox.BoundaryReplay, NotDrawn: operatorOnly},
}

// Boundaries returns every boundary the lab's components declare, as
// the lab classifies them, in the order exploration draws from.
func Boundaries() []BoundarySpec { return append([]BoundarySpec(nil), boundaries...) }

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
