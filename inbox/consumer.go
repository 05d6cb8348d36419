package inbox

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/store"
)

// The consumer's effect boundaries.
var (
	// BoundaryCommit is the commit of the effect together with the inbox row
	// (consumer.before-commit, consumer.after-commit); parking a message is
	// committed at this boundary too.
	BoundaryCommit = effect.Boundary{Process: "consumer", Effect: "commit", Kind: effect.Commit}
	// BoundaryAck is the acknowledgement of the delivery to the broker.
	BoundaryAck = effect.Boundary{Process: "consumer", Effect: "ack", Kind: effect.Ack}
	// BoundaryFailure is the commit that counts a failed processing attempt.
	BoundaryFailure = effect.Boundary{Process: "consumer", Effect: "count-failure", Kind: effect.Commit}
	// BoundaryReplay is the commit that takes dead letters out for a replay.
	BoundaryReplay = effect.Boundary{Process: "consumer", Effect: "replay", Kind: effect.Commit}
)

// Source is the broker as a consumer sees it.
type Source interface {
	Receive(subscription string) (broker.Delivery, bool)
	Ack(subscription string, tag uint64) error
	Nack(subscription string, tag uint64) error
	Redeliver(subscription, messageID string) error
}

// Clock tells the consumer the current time.
type Clock interface{ Now() time.Time }

// Effect writes the business effect of one event into tx: billing's
// ApplyEffect, the insurance story's payout, the listener's stored order.
type Effect func(tx *store.Tx, e domain.Event, messageID string, now time.Time) error

// Config configures a Consumer.
type Config struct {
	// Owner is the process name its transactions belong to, e.g. "billing".
	Owner string
	// Subscription is the broker subscription it consumes.
	Subscription string
	// MaxAttempts is how often a message may fail to be processed before it
	// is parked as a dead letter (poison). Default 3.
	MaxAttempts int
}

// DefaultConfig returns a consumer's default configuration.
func DefaultConfig(owner, subscription string) Config {
	return Config{Owner: owner, Subscription: subscription, MaxAttempts: 3}
}

// Validate names every field out of range.
func (c Config) Validate() error {
	var errs []error
	if c.Owner == "" {
		errs = append(errs, errors.New(`inbox: config: Owner = "", want a process name`))
	}
	if c.Subscription == "" {
		errs = append(errs, errors.New(`inbox: config: Subscription = "", want a subscription name`))
	}
	if c.MaxAttempts < 1 {
		errs = append(errs, fmt.Errorf("inbox: config: MaxAttempts = %d, want >= 1", c.MaxAttempts))
	}
	return errors.Join(errs...)
}

// Deps are what a consumer works with, all required.
type Deps struct {
	DB     *store.DB
	Broker Source
	Gate   effect.Gate
	Clock  Clock
	Effect Effect
}

// Consumer is the correct consumer: idempotent through an inbox in
// the effect's transaction, ordered per aggregate, and with a dead letter
// for what it can never process.
type Consumer struct {
	cfg Config
	Deps
}

// NewConsumer returns a consumer, or an error naming what is wrong.
func NewConsumer(cfg Config, deps Deps) (*Consumer, error) {
	errs := []error{cfg.Validate()}
	if deps.DB == nil || deps.Broker == nil || deps.Gate == nil || deps.Clock == nil || deps.Effect == nil {
		errs = append(errs, errors.New("inbox: DB, Broker, Gate, Clock and Effect are required"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Consumer{cfg: cfg, Deps: deps}, nil
}

// Parked is a message waiting for an earlier event of its aggregate, or a
// dead letter the consumer cannot process.
type Parked struct {
	Envelope broker.Envelope
	Reason   string
	At       time.Time
}

// Processed records that a message's effect was applied.
type Processed struct {
	MessageID string
	At        time.Time
}

// failure is a message that could not be processed this time.
type failure struct{ err error }

func (f failure) Error() string { return f.err.Error() }

// Step receives one delivery and handles it: applied (or found applied
// before) and acknowledged, parked and acknowledged, or failed and handed
// back to the broker. It reports whether there was a delivery, and returns
// effect.ErrCrashed (wrapped) when the process crashed at a boundary.
func (c *Consumer) Step() (bool, error) {
	d, ok := c.Broker.Receive(c.cfg.Subscription)
	if !ok {
		return false, nil
	}
	if err := c.handle(d.Envelope); err != nil {
		var f failure
		if !errors.As(err, &f) {
			return true, c.handBack(d, err)
		}
		parked, err := c.countFailure(d.Envelope, f)
		if err != nil {
			return true, c.handBack(d, err)
		}
		if !parked {
			// Hand it back; it comes again after what is already waiting.
			return true, c.Broker.Nack(c.cfg.Subscription, d.Tag)
		}
	}
	tag := d.Tag
	err := c.Gate.Cross(BoundaryAck, func() error { return c.Broker.Ack(c.cfg.Subscription, tag) })
	if err != nil {
		return true, fmt.Errorf("inbox: ack %s: %w", d.Envelope.ID, err)
	}
	return true, nil
}

// handBack gives a delivery back after an error that is not the message's
// fault (a commit that failed: a lost connection), so that it comes again,
// and returns the error. A process that crashed does nothing more: the
// broker gives its deliveries back itself.
func (c *Consumer) handBack(d broker.Delivery, err error) error {
	if errors.Is(err, effect.ErrCrashed) {
		return err
	}
	return errors.Join(err, c.Broker.Nack(c.cfg.Subscription, d.Tag))
}

// handle applies one message in one transaction, parks it, or decides that
// there is nothing to do. It returns a failure when the message could not be
// processed this time.
func (c *Consumer) handle(env broker.Envelope) error {
	now := c.Clock.Now()
	tx := c.DB.Begin(c.cfg.Owner)
	defer tx.Rollback()
	if _, done := tx.Get(TableProcessed, env.ID); done {
		return nil // a redelivery: the effect is already there
	}
	if _, dead := tx.Get(TableDead, env.ID); dead {
		return nil // already a visible dead letter
	}
	changed, err := c.process(tx, env, now)
	if err != nil || !changed {
		return err
	}
	err = c.Gate.Cross(BoundaryCommit, tx.Commit)
	if errors.Is(err, store.ErrDuplicateKey) {
		return nil // another consumer instance applied it first
	}
	if err != nil {
		return fmt.Errorf("inbox: commit %s: %w", env.ID, err)
	}
	return nil
}

// process writes into tx what env means for the consumer and reports whether
// there is anything to commit.
func (c *Consumer) process(tx *store.Tx, env broker.Envelope, now time.Time) (bool, error) {
	event, err := domain.Decode(env.Event)
	switch {
	case errors.Is(err, domain.ErrUnknownEvent) || errors.Is(err, domain.ErrUnknownVersion):
		// A contract this code does not know: park it at once, never misread it.
		tx.Put(TableDead, env.ID, Parked{Envelope: env, Reason: err.Error(), At: now})
		return true, nil
	case err != nil:
		return false, failure{err}
	}
	applied := LoadApplied(tx, event.AggregateID())
	switch {
	case event.Seq() <= applied:
		return false, nil // stale: this or a newer change is already applied
	case event.Seq() > applied+1:
		key := ParkedKey(event.AggregateID(), event.Seq())
		if _, ok := tx.Get(TableParked, key); ok {
			return false, nil
		}
		tx.Put(TableParked, key, Parked{Envelope: env, Reason: fmt.Sprintf("waiting for #%d", applied+1), At: now})
		return true, nil
	}
	if err := c.apply(tx, env.ID, event, now); err != nil {
		return false, failure{err}
	}
	return true, c.drainParked(tx, event.AggregateID(), now)
}

// apply writes the effect, the aggregate's new sequence and the inbox row:
// one transaction, so that they exist together or not at all.
func (c *Consumer) apply(tx *store.Tx, messageID string, event domain.Event, now time.Time) error {
	if err := c.Effect(tx, event, messageID, now); err != nil {
		return err
	}
	SetApplied(tx, event.AggregateID(), event.Seq())
	return tx.Insert(TableProcessed, messageID, Processed{MessageID: messageID, At: now})
}

// drainParked applies the parked successors of an aggregate that are now in
// sequence. A successor that fails goes back to waiting, as a dead letter.
func (c *Consumer) drainParked(tx *store.Tx, orderID string, now time.Time) error {
	for {
		next := LoadApplied(tx, orderID) + 1
		key := ParkedKey(orderID, next)
		v, ok := tx.Get(TableParked, key)
		if !ok {
			return nil
		}
		p := v.(Parked)
		tx.Delete(TableParked, key)
		event, err := domain.Decode(p.Envelope.Event)
		if err == nil {
			err = c.apply(tx, p.Envelope.ID, event, now)
		}
		if err != nil {
			tx.Put(TableDead, p.Envelope.ID, Parked{Envelope: p.Envelope, Reason: err.Error(), At: now})
			return nil
		}
	}
}

// countFailure records one failed attempt durably and parks the message as
// a dead letter once it failed MaxAttempts times. It reports whether it
// parked the message.
func (c *Consumer) countFailure(env broker.Envelope, f failure) (parked bool, err error) {
	now := c.Clock.Now()
	tx := c.DB.Begin(c.cfg.Owner)
	defer tx.Rollback()
	n := 1
	if v, ok := tx.Get(TableFailures, env.ID); ok {
		n = v.(int) + 1
	}
	b := BoundaryFailure
	if n >= c.cfg.MaxAttempts {
		tx.Delete(TableFailures, env.ID)
		tx.Put(TableDead, env.ID, Parked{Envelope: env, Reason: fmt.Sprintf("failed %d times: %v", n, f.err), At: now})
		b, parked = BoundaryCommit, true
	} else {
		tx.Put(TableFailures, env.ID, n)
	}
	if err := c.Gate.Cross(b, tx.Commit); err != nil {
		return false, fmt.Errorf("inbox: count failure of %s: %w", env.ID, err)
	}
	return parked, nil
}

// ParkedKey is the key in TableParked of an aggregate's event seq: the
// aggregate's events sort by sequence, and Blocked reads the aggregate back.
func ParkedKey(aggregateID string, seq int) string { return store.SeqKey(aggregateID+"/", seq) }

// ReplayDeadLetters takes every dead letter out of the dead-letter table and
// asks the broker to deliver the stored original again, once an operator
// fixed the cause. It returns how many it replayed.
func (c *Consumer) ReplayDeadLetters() (int, error) {
	tx := c.DB.Begin(c.cfg.Owner)
	defer tx.Rollback()
	var ids []string
	tx.Scan(TableDead, func(key string, v any) bool {
		tx.Delete(TableDead, key)
		tx.Delete(TableFailures, key)
		ids = append(ids, key)
		return true
	})
	if len(ids) == 0 {
		return 0, nil
	}
	if err := c.Gate.Cross(BoundaryReplay, tx.Commit); err != nil {
		return 0, fmt.Errorf("inbox: replay: %w", err)
	}
	for _, id := range ids {
		if err := c.Broker.Redeliver(c.cfg.Subscription, id); err != nil {
			return 0, fmt.Errorf("inbox: replay: %w", err)
		}
	}
	return len(ids), nil
}

// Held returns every message the consumer holds without having applied it:
// those parked behind a gap, then the dead letters.
func Held(db *store.DB) []Parked {
	return append(store.Values[Parked](db, TableParked), DeadLetters(db)...)
}

// DeadLetters returns the consumer's dead letters, by message id.
func DeadLetters(db *store.DB) []Parked { return store.Values[Parked](db, TableDead) }

// Held returns every message this consumer holds without having applied
// it, as the function Held does for its database: an operator's view.
func (c *Consumer) Held() []Parked { return Held(c.DB) }

// DeadLetters returns this consumer's dead letters, by message id: what
// an operator replays once the cause is fixed.
func (c *Consumer) DeadLetters() []Parked { return DeadLetters(c.DB) }

// BlockedAggregate is an aggregate whose later events wait for a missing one.
type BlockedAggregate struct {
	OrderID string
	// Missing is the sequence number the consumer waits for.
	Missing int
	// Waiting is how many later events are parked.
	Waiting int
}

// Blocked returns the orders that wait for a missing event, by order id:
// the consumer's blocked-aggregates metric. Other orders are not affected.
func Blocked(db *store.DB) []BlockedAggregate {
	byOrder := map[string]*BlockedAggregate{}
	var ids []string
	for _, k := range db.Keys(TableParked) {
		id := k[:strings.LastIndex(k, "/")]
		b, ok := byOrder[id]
		if !ok {
			applied := 0
			if v, ok := db.Get(TableApplied, id); ok {
				applied = v.(int)
			}
			b = &BlockedAggregate{OrderID: id, Missing: applied + 1}
			byOrder[id] = b
			ids = append(ids, id)
		}
		b.Waiting++
	}
	sort.Strings(ids)
	out := make([]BlockedAggregate, 0, len(ids))
	for _, id := range ids {
		out = append(out, *byOrder[id])
	}
	return out
}
