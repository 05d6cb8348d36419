package effect

import "errors"

// ErrCrashed is returned by Gate.Cross when the calling process crashed at
// the boundary (before or after the effect). The caller must return
// immediately, handing the error up: everything volatile is gone.
var ErrCrashed = errors.New("process crashed")

// Boundary names one durable effect of one process role, for example
// {Process: "service", Effect: "commit", Kind: Commit} or
// {Process: "relay", Effect: "send", Kind: Send}.
type Boundary struct {
	// Process is the role that performs the effect: "service", "relay",
	// "consumer".
	Process string
	// Effect is what happens at the boundary: "commit", "claim", "send",
	// "mark", "ack", ...
	Effect string
	// Kind is what sort of effect it is: a commit of the process's own
	// database, a send to the broker, an ack of a delivery, a call into
	// another service. What can go wrong there follows from it: a commit
	// can fail with nothing written, a send can reach the broker and its
	// answer not come back.
	Kind Kind
}

// Kind is what sort of durable effect a boundary is.
type Kind string

// The kinds of effect.
const (
	// Commit is the commit of a transaction in the process's own
	// database: the effect is there, or (the commit failed) nothing is.
	Commit Kind = "commit"
	// Send hands the broker a message, or the decision on one it holds
	// prepared (publish, prepare, commit or abort of a prepared message).
	Send Kind = "send"
	// Ack acknowledges a delivery to the broker: it will not deliver it
	// again.
	Ack Kind = "ack"
	// Call is a synchronous call into another service, which commits its
	// own effect before it answers.
	Call Kind = "call"
)

// Before returns the id of the crash point just before the effect, e.g.
// "relay.before-send".
func (b Boundary) Before() string { return b.Process + ".before-" + b.Effect }

// After returns the id of the crash point just after the effect, e.g.
// "relay.after-send".
func (b Boundary) After() string { return b.Process + ".after-" + b.Effect }

// String returns "process.effect".
func (b Boundary) String() string { return b.Process + "." + b.Effect }

// Gate performs durable effects on behalf of one process.
type Gate interface {
	// Cross performs effect at boundary b and returns its error. A gate
	// under test may instead crash the process before the effect (effect is
	// not called) or after a successful effect; either way it returns
	// ErrCrashed.
	Cross(b Boundary, effect func() error) error
}

// Direct is the production gate: it performs every effect and never crashes.
type Direct struct{}

// Cross implements Gate.
func (Direct) Cross(_ Boundary, effect func() error) error { return effect() }
