package twophase

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/orders"
	"outboxlab/store"
)

// The effect boundaries of a two-phase commit.
var (
	// BoundaryPrepare is the broker's prepare (service.after-prepare: the
	// message is prepared, the database not yet committed).
	BoundaryPrepare = effect.Boundary{Process: "service", Effect: "prepare", Kind: effect.Send}
	// BoundaryCommitMessage is the broker's commit of the prepared message
	// (service.before-commit-message: the database committed, the message
	// is still in doubt).
	BoundaryCommitMessage = effect.Boundary{Process: "service", Effect: "commit-message", Kind: effect.Send}
	// BoundaryAbort is the service's abort of its prepared message after
	// its database refused the commit.
	BoundaryAbort = effect.Boundary{Process: "service", Effect: "abort", Kind: effect.Send}
	// BoundaryDecide is the coordinator's commit of its decision to abort
	// a message in doubt whose transaction has decided nothing.
	BoundaryDecide = effect.Boundary{Process: "coordinator", Effect: "decide", Kind: effect.Commit}
	// BoundaryResolve is the coordinator's commit or abort of a message in
	// doubt.
	BoundaryResolve = effect.Boundary{Process: "coordinator", Effect: "resolve", Kind: effect.Send}
)

// Decisions is the table of the order database that holds each
// transaction's decision, keyed by its message's id: Commit, written by
// the service's own transaction with the order, or Abort, written by the
// coordinator for a transaction that decided nothing. Whichever commits
// first stands: the second insert of the same key fails.
const Decisions = "twophase_decisions"

// The decisions.
const (
	Commit = "commit"
	Abort  = "abort"
)

// Install creates the decisions table.
func Install(db *store.DB) error {
	if err := db.CreateTable(Decisions); err != nil {
		return fmt.Errorf("twophase: install: %w", err)
	}
	return nil
}

// InDoubtAfter is how long a prepared message may wait for its second
// phase before the coordinator resolves it: longer than any command takes.
const InDoubtAfter = 10 * time.Second

// Clock tells the current time.
type Clock interface{ Now() time.Time }

// IDs draws message ids.
type IDs interface{ NewID() string }

// Broker is what a two-phase commit needs of the broker.
type Broker interface {
	Prepare(broker.Envelope) error
	CommitPrepared(id string) error
	AbortPrepared(id string) error
	InDoubt(before time.Time) []broker.Envelope
}

// Service is the order service storing the order and the event in one
// two-phase commit.
type Service struct {
	DB     *store.DB
	Broker Broker
	Gate   effect.Gate
	Clock  Clock
	IDs    IDs
	Owner  string
}

// Handle decides the command, has the broker prepare its event, commits
// the order, and commits the event. Without the broker's prepare nothing
// is stored and the client sees the error.
func (s *Service) Handle(c orders.Command) error {
	now := s.Clock.Now()
	tx := s.DB.Begin(s.Owner)
	defer tx.Rollback()
	event, err := orders.Decide(tx, c, now)
	if err != nil {
		return err
	}
	rec, err := domain.Encode(event)
	if err != nil {
		return err
	}
	if err := s.finishEarlier(tx, event); err != nil {
		return fmt.Errorf("twophase: %s: %w", c, err)
	}
	msg := broker.Envelope{ID: s.IDs.NewID(), Event: rec}
	if err := s.Gate.Cross(BoundaryPrepare, func() error { return s.Broker.Prepare(msg) }); err != nil {
		return fmt.Errorf("twophase: %s: phase 1: %w", c, err)
	}
	// The decision commits with the order: a coordinator that decided to
	// abort first (this process was slower than InDoubtAfter) makes this
	// commit fail, and the order is not stored.
	if err := tx.Insert(Decisions, msg.ID, Commit); err != nil {
		return fmt.Errorf("twophase: %s: %w", c, err)
	}
	err = s.Gate.Cross(orders.BoundaryCommit, tx.Commit)
	if errors.Is(err, effect.ErrCrashed) {
		// A dead process does nothing more: the coordinator resolves
		// its message by what the database holds.
		return fmt.Errorf("twophase: %s: %w", c, err)
	}
	if err != nil {
		// The decision is no: the message must never be delivered. If the
		// abort does not reach the broker, the coordinator aborts it.
		if abortErr := s.Gate.Cross(BoundaryAbort, func() error { return s.Broker.AbortPrepared(msg.ID) }); errors.Is(abortErr, effect.ErrCrashed) {
			return fmt.Errorf("twophase: %s: %w", c, abortErr)
		}
		return fmt.Errorf("twophase: %s: %w", c, err)
	}
	// The order is committed: the decision is yes. A broker that is gone
	// now leaves the message in doubt for the coordinator.
	// A dead process says so (effect.ErrCrashed); a broker that answers
	// nothing is no error to the client: the order is stored.
	if err := s.Gate.Cross(BoundaryCommitMessage, func() error { return s.Broker.CommitPrepared(msg.ID) }); errors.Is(err, effect.ErrCrashed) {
		return fmt.Errorf("twophase: %s: %w", c, err)
	}
	return nil
}

// finishEarlier commits at the broker every earlier event of event's
// order that is still in doubt and whose transaction decided yes (tx
// reads the decisions), before the service prepares event: an order's
// events must reach the broker in their order (chapter 001), and one in
// doubt is not there yet. The service finishes what the coordinator
// would, at once. One whose transaction decided nothing (its service
// died before the commit) is no committed change: the coordinator aborts
// it.
func (s *Service) finishEarlier(tx *store.Tx, event domain.Event) error {
	for _, m := range s.Broker.InDoubt(s.Clock.Now().Add(24 * time.Hour)) {
		if m.Event.AggregateID != event.AggregateID() || m.Event.Sequence >= event.Seq() {
			continue
		}
		if d, ok := tx.Get(Decisions, m.ID); !ok || d != Commit {
			continue
		}
		err := s.Gate.Cross(BoundaryCommitMessage, func() error { return s.Broker.CommitPrepared(m.ID) })
		if errors.Is(err, broker.ErrUnknownMessage) {
			continue // the coordinator committed it meanwhile
		}
		if err != nil {
			return fmt.Errorf("commit %s, in doubt before it: %w", m.ID, err)
		}
	}
	return nil
}

// Coordinator resolves the messages in doubt by their transaction's
// decision: committed when the service committed it with the order,
// aborted otherwise. Where the transaction decided nothing (the service
// died, or is slow), the coordinator decides to abort, durably, before it
// tells the broker: it never guesses from what it read, for a slow
// service may commit between its read and its word to the broker.
type Coordinator struct {
	DB     *store.DB
	Broker Broker
	Gate   effect.Gate
	Clock  Clock
}

// Step resolves every message prepared more than InDoubtAfter ago.
func (c *Coordinator) Step() (bool, error) {
	did := false
	for _, m := range c.Broker.InDoubt(c.Clock.Now().Add(-InDoubtAfter)) {
		decision, err := c.decide(m.ID)
		if errors.Is(err, effect.ErrCrashed) {
			return did, err
		}
		did = true
		if err != nil {
			continue // the service decided meanwhile: read it at the next step
		}
		err = c.Gate.Cross(BoundaryResolve, func() error {
			if decision == Commit {
				return c.Broker.CommitPrepared(m.ID)
			}
			return c.Broker.AbortPrepared(m.ID)
		})
		if errors.Is(err, effect.ErrCrashed) {
			return did, fmt.Errorf("twophase: resolve %s: %w", m.ID, err)
		}
		if err != nil {
			return did, nil // the broker is away: try again at the next wake
		}
	}
	return did, nil
}

// decide returns the decision of the transaction of message id: the one
// committed, or Abort, committed now.
func (c *Coordinator) decide(id string) (string, error) {
	tx := c.DB.Begin("coordinator")
	defer tx.Rollback()
	if d, ok := tx.Get(Decisions, id); ok {
		return d.(string), nil
	}
	if err := tx.Insert(Decisions, id, Abort); err != nil {
		return "", fmt.Errorf("twophase: decide %s: %w", id, err)
	}
	if err := c.Gate.Cross(BoundaryDecide, tx.Commit); err != nil {
		return "", fmt.Errorf("twophase: decide %s: %w", id, err)
	}
	return Abort, nil
}

// NextWake is a second from now while any message is prepared: the
// coordinator looks for what fell in doubt once a second.
func (c *Coordinator) NextWake() (time.Time, bool) {
	if len(c.Broker.InDoubt(c.Clock.Now().Add(InDoubtAfter))) == 0 {
		return time.Time{}, false
	}
	return c.Clock.Now().Add(time.Second), true
}

// Recover does nothing: what is in doubt is in the broker.
func (c *Coordinator) Recover() error { return nil }

// ReplayDeadLetters replays nothing: there are no dead letters.
func (c *Coordinator) ReplayDeadLetters() (int, error) { return 0, nil }
