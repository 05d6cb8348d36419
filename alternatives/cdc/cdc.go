package cdc

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/store"
)

// Tables of the connector, in the order service's database.
const (
	// TableOffset holds the connector's offset: the last commit it has
	// fully published.
	TableOffset = "cdc_offset"
	// TableRetries holds the attempts and next retry time of the message
	// the connector is stuck on.
	TableRetries = "cdc_retries"
	// TableDead holds messages the broker refused MaxAttempts times.
	TableDead = "cdc_dead_letters"
)

// BoundaryOffset is the commit of the offset (relay.after-offset), the
// connector's own effect boundary. Its publish of one message is the
// outbox relay's (outbox.BoundarySend, relay.after-send): one boundary,
// one crash point, whichever relay crosses it.
var BoundaryOffset = effect.Boundary{Process: "relay", Effect: "offset", Kind: effect.Commit}

// Install creates the connector's tables and makes db keep the commit log
// the connector tails, as a real connector creates a replication slot.
func Install(db *store.DB) error {
	db.KeepLog()
	return errors.Join(db.CreateTable(TableOffset), db.CreateTable(TableRetries), db.CreateTable(TableDead))
}

// Clock tells the current time.
type Clock interface{ Now() time.Time }

// IDs draws message ids.
type IDs interface{ NewID() string }

// Service is the order service for CDC: order and outbox row in one
// transaction, the row deleted again before the commit (the log keeps it).
type Service struct {
	DB    *store.DB
	Gate  effect.Gate
	Clock Clock
	IDs   IDs
	Owner string
}

// Handle runs one use case in one transaction.
func (s *Service) Handle(c orders.Command) error {
	now := s.Clock.Now()
	tx := s.DB.Begin(s.Owner)
	defer tx.Rollback()
	event, err := orders.Decide(tx, c, now)
	if err != nil {
		return err
	}
	m, err := outbox.Append(tx, s.IDs.NewID(), event, now)
	if err != nil {
		return fmt.Errorf("cdc: %s: %w", c, err)
	}
	tx.Delete(outbox.Table, m.Key) // the commit log carries it to the connector
	if err := s.Gate.Cross(orders.BoundaryCommit, tx.Commit); err != nil {
		return fmt.Errorf("cdc: %s: %w", c, err)
	}
	return nil
}

// retry is the state of the message the connector is stuck on.
type retry struct {
	MessageID string
	Attempts  int
	NextAt    time.Time
}

// Relay is the connector.
type Relay struct {
	DB     *store.DB
	Broker broker.Publisher
	Gate   effect.Gate
	Clock  Clock
	Owner  string
	// Config supplies BatchSize, MaxAttempts and the backoff.
	Config outbox.Config
	// Messages says what of a commit the connector publishes; nil means
	// the outbox rows it inserted. A connector on a legacy system's own
	// tables publishes their rows (package legacycdc).
	Messages func(store.Commit) []outbox.Message
}

// messages returns what the connector publishes of c.
func (r *Relay) messages(c store.Commit) []outbox.Message {
	if r.Messages != nil {
		return r.Messages(c)
	}
	return inserts(c)
}

func (r *Relay) offset(tx *store.Tx) uint64 {
	if v, ok := tx.Get(TableOffset, "offset"); ok {
		return v.(uint64)
	}
	return 0
}

// inserts returns the outbox messages a commit inserted, in order.
func inserts(c store.Commit) []outbox.Message {
	var out []outbox.Message
	for _, ch := range c.Changes {
		if m, ok := ch.Value.(outbox.Message); ok && ch.Table == outbox.Table && !ch.Deleted && m.Status == outbox.Pending {
			out = append(out, m)
		}
	}
	return out
}

// Step publishes the messages of the commits past the offset, commit by
// commit, up to BatchSize messages, and moves the offset past every commit
// whose messages are all acknowledged (or dead-lettered). A broker error
// stops the step; the message is retried after a backoff, and
// dead-lettered after MaxAttempts. A commit left half-done is sent again
// from its start: at least once.
func (r *Relay) Step() (bool, error) {
	now := r.Clock.Now()
	tx := r.DB.Begin(r.Owner)
	defer tx.Rollback()
	from := r.offset(tx)
	to, sent, did := from, 0, false
commits:
	for _, c := range r.DB.Log(from) {
		for _, m := range r.messages(c) {
			if _, dead := tx.Get(TableDead, m.ID); dead {
				continue
			}
			if v, ok := tx.Get(TableRetries, "current"); ok && v.(retry).MessageID == m.ID && now.Before(v.(retry).NextAt) {
				break commits // waiting out the backoff
			}
			did = true
			err := r.Gate.Cross(outbox.BoundarySend, func() error { return r.Broker.Publish(broker.Envelope{ID: m.ID, Event: m.Event}) })
			if errors.Is(err, effect.ErrCrashed) {
				return true, fmt.Errorf("cdc: send %s: %w", m.ID, err)
			}
			if err != nil {
				// Retried after its backoff, or dead-lettered: either
				// way the step ends here, so that a dead letter is
				// committed before anything past it goes out (the next
				// step skips it). Published past a dead letter that a
				// crash then undid, a later event would be on the
				// broker while its predecessor is tried again.
				r.recordFailure(tx, m, err, now)
				break commits
			}
			tx.Delete(TableRetries, "current")
			sent++
		}
		to = c.Seq
		if sent >= r.Config.BatchSize {
			break
		}
	}
	if !did {
		// Only commits without messages (the connector's own offset commits
		// among them): committing an offset for them would make another.
		return false, nil
	}
	if to != from {
		tx.Put(TableOffset, "offset", to)
	}
	if err := r.Gate.Cross(BoundaryOffset, tx.Commit); err != nil {
		return true, fmt.Errorf("cdc: commit offset: %w", err)
	}
	return true, nil
}

// recordFailure counts a failed publish of m in tx and reports whether m
// was dead-lettered.
func (r *Relay) recordFailure(tx *store.Tx, m outbox.Message, cause error, now time.Time) (dead bool) {
	cur := retry{MessageID: m.ID}
	if v, ok := tx.Get(TableRetries, "current"); ok && v.(retry).MessageID == m.ID {
		cur = v.(retry)
	}
	cur.Attempts++
	if cur.Attempts >= r.Config.MaxAttempts {
		m.Status, m.Attempts, m.LastError = outbox.DeadLetter, cur.Attempts, cause.Error()
		tx.Put(TableDead, m.ID, m)
		tx.Delete(TableRetries, "current")
		return true
	}
	cur.NextAt = now.Add(r.Config.Backoff(cur.Attempts, 0))
	tx.Put(TableRetries, "current", cur)
	return false
}

// Recover has nothing to do: the offset is durable, and what was sent but
// not yet covered by it is sent again.
func (r *Relay) Recover() error { return nil }

// NextWake returns when Step has work: now if the log holds a message past
// the offset, or the end of the backoff; false when everything is published.
func (r *Relay) NextWake() (time.Time, bool) {
	tx := r.DB.Begin(r.Owner)
	defer tx.Rollback()
	for _, c := range r.DB.Log(r.offset(tx)) {
		for _, m := range r.messages(c) {
			if _, dead := tx.Get(TableDead, m.ID); dead {
				continue
			}
			if v, ok := tx.Get(TableRetries, "current"); ok && v.(retry).MessageID == m.ID {
				return v.(retry).NextAt, true
			}
			return r.Clock.Now(), true
		}
	}
	return time.Time{}, false
}

// ReplayDeadLetters publishes the dead letters again, once the cause was
// fixed, and removes those the broker accepted.
func (r *Relay) ReplayDeadLetters() (int, error) {
	tx := r.DB.Begin(r.Owner)
	defer tx.Rollback()
	n := 0
	var firstErr error
	tx.Scan(TableDead, func(key string, v any) bool {
		m := v.(outbox.Message)
		err := r.Gate.Cross(outbox.BoundarySend, func() error { return r.Broker.Publish(broker.Envelope{ID: m.ID, Event: m.Event}) })
		if err != nil {
			firstErr = err
			return !errors.Is(err, effect.ErrCrashed)
		}
		tx.Delete(TableDead, key)
		n++
		return true
	})
	if errors.Is(firstErr, effect.ErrCrashed) {
		return n, firstErr
	}
	if n == 0 {
		return 0, firstErr
	}
	if err := r.Gate.Cross(BoundaryOffset, tx.Commit); err != nil {
		return n, err
	}
	return n, nil
}

// DeadLetters returns the events of the dead letters, for reports.
func DeadLetters(db *store.DB) []domain.Record {
	var out []domain.Record
	for _, m := range store.Values[outbox.Message](db, TableDead) {
		out = append(out, m.Event)
	}
	return out
}
