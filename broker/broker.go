package broker

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"outboxlab/domain"
)

// Sentinel errors of Publish.
var (
	// ErrUnavailable means the broker could not be reached; nothing was stored.
	ErrUnavailable = errors.New("broker unavailable")
	// ErrTimeout means the publisher got no answer in time. The message may
	// or may not be stored: the error is the same in both cases, so the
	// publisher cannot tell, and must send again under the same id.
	ErrTimeout = errors.New("broker publish timed out")
	// ErrRejected means the broker refuses this message, now and every time.
	ErrRejected = errors.New("broker rejected message")
	// ErrUnknownDelivery means an ack named a delivery the subscriber does
	// not hold (already acked, or requeued by a reconnect).
	ErrUnknownDelivery = errors.New("unknown delivery")
	// ErrUnknownMessage means the log holds no message with that id.
	ErrUnknownMessage = errors.New("unknown message")
	// ErrUnknownSubscription means the broker has no subscription of
	// that name: a consumer configured with another name than the one
	// it was subscribed under.
	ErrUnknownSubscription = errors.New("unknown subscription")
)

// Envelope is a message on the wire: its stable id and the event record.
type Envelope struct {
	ID    string
	Event domain.Record
}

// Publisher is the port a relay (or a dual-writing service) sends through.
type Publisher interface {
	// Publish stores the envelope durably and returns nil once it did.
	Publish(Envelope) error
}

// Clock tells the broker the current (virtual) time.
type Clock interface{ Now() time.Time }

// Target names one message by its aggregate and sequence number.
type Target struct {
	AggregateID string
	Sequence    int
}

func (t Target) matches(e Envelope) bool {
	return e.Event.AggregateID == t.AggregateID && e.Event.Sequence == t.Sequence
}

func (t Target) String() string { return fmt.Sprintf("%s#%d", t.AggregateID, t.Sequence) }

// Delivery is one hand-over of a message to a subscriber.
type Delivery struct {
	// Tag identifies this delivery for Ack.
	Tag      uint64
	Envelope Envelope
	// Redelivered is set when the subscriber got this message before.
	Redelivered bool
}

type entry struct {
	env         Envelope
	availableAt time.Time
	redelivered bool
}

type subscription struct {
	name     string
	queue    []entry
	inflight []inflight // in delivery order
	seen     map[string]bool
	// redeliveries counts deliveries of a message id the subscriber had
	// received before.
	redeliveries int
	// nacks counts, by message id, the deliveries the subscriber gave back.
	nacks map[string]int
	// acked are the messages the subscriber acknowledged, each once, in
	// the order of its first acknowledgement.
	acked    []Envelope
	ackedIDs map[string]bool
}

type inflight struct {
	tag uint64
	e   entry
}

// Broker is the durable broker. Create it with New.
type Broker struct {
	clock Clock
	log   []Envelope
	// storedAt is when each message of log was stored, index by index.
	storedAt []time.Time
	subs     []*subscription // in subscription order
	nextTag  uint64
	history  []Action
	// noHistory switches the record off, for runs nobody reads it of.
	noHistory bool
	faults    faults
	// attempts counts every Publish call per message id, in the order of
	// the first: what a retry storm would show on the broker's side.
	attempts []PublishAttempts
	attempt  map[string]int // message id -> index in attempts
	last     int            // index in attempts of the latest request
	// whileDown counts the publish attempts refused because the broker was
	// down: what a relay that does not pause as a whole hammers it with.
	whileDown int
	// calls and refused count every Publish call and those that returned
	// an error (see Publishes).
	calls, refused int
	// changes counts the actions recorded, kept or not (see Changes).
	changes uint64
	// prepared are the messages of two-phase commits in their first
	// phase (see Prepare).
	prepared []preparedEntry
}

// PublishAttempts is how often one message was handed to Publish, whatever
// the broker answered.
type PublishAttempts struct {
	ID    string
	Event domain.Record
	N     int
}

// Redeliveries returns how many times the subscriber received a message id
// it had received before: a redelivery after a reconnect, a duplicate, or
// a message published twice.
func (b *Broker) Redeliveries(name string) int { return b.mustSub(name).redeliveries }

// Nacks returns how many deliveries of a message the subscriber gave back
// (Nack): the attempts it made and could not finish, as the broker saw
// them, whatever the subscriber recorded of them.
func (b *Broker) Nacks(name, messageID string) int { return b.mustSub(name).nacks[messageID] }

// Attempts returns the publish attempts of every message, in the order of
// each message's first attempt.
func (b *Broker) Attempts() []PublishAttempts { return b.attempts }

// AttemptsWhileDown returns how many publish attempts the broker refused
// because it was down (an outage), of every message together.
func (b *Broker) AttemptsWhileDown() int { return b.whileDown }

// Publishes returns how many times Publish was called and how many of
// those calls returned an error (an outage, a rejection, a timeout, even
// one that stored the message): what publishers saw fail.
func (b *Broker) Publishes() (calls, refused int) { return b.calls, b.refused }

// UpAt returns the first time at or after t when no outage keeps the
// broker down: t itself when it is up then.
func (b *Broker) UpAt(t time.Time) time.Time {
	for {
		end, down := b.faults.outageEnd(t)
		if !down {
			return t
		}
		t = end
	}
}

func (b *Broker) countAttempt(e Envelope) {
	if b.attempt == nil {
		b.attempt = map[string]int{}
	}
	i, ok := b.attempt[e.ID]
	if !ok {
		i = len(b.attempts)
		b.attempt[e.ID] = i
		b.attempts = append(b.attempts, PublishAttempts{ID: e.ID, Event: e.Event})
	}
	b.attempts[i].N++
	b.last = i
}

// LastAttempt returns the message of the latest request to store one (a
// publish, a prepare), with its count of requests so far; false before
// the first.
func (b *Broker) LastAttempt() (PublishAttempts, bool) {
	if len(b.attempts) == 0 {
		return PublishAttempts{}, false
	}
	return b.attempts[b.last], true
}

// New returns an empty broker reading time from clock.
func New(clock Clock) *Broker {
	return &Broker{clock: clock}
}

// Subscribe creates a named subscription that receives every message
// published from now on. Subscribing twice under one name is an error.
func (b *Broker) Subscribe(name string) error {
	if b.sub(name) != nil {
		return fmt.Errorf("broker: subscribe %s: already subscribed", name)
	}
	b.subs = append(b.subs, &subscription{name: name, seen: map[string]bool{}})
	return nil
}

func (b *Broker) sub(name string) *subscription {
	for _, s := range b.subs {
		if s.name == name {
			return s
		}
	}
	return nil
}

// subOf returns the subscription name, or an error naming it and the
// broker's subscriptions: what a client of a real broker gets for a
// subscription the broker does not have.
func (b *Broker) subOf(name string) (*subscription, error) {
	if s := b.sub(name); s != nil {
		return s, nil
	}
	var names []string
	for _, s := range b.subs {
		names = append(names, s.name)
	}
	return nil, fmt.Errorf("broker: subscription %q (the broker has %v): %w", name, names, ErrUnknownSubscription)
}

func (b *Broker) mustSub(name string) *subscription {
	s := b.sub(name)
	if s == nil {
		panic(fmt.Sprintf("broker: no subscription %q", name))
	}
	return s
}

// Publish implements Publisher, subject to the faults in force.
func (b *Broker) Publish(e Envelope) error {
	now := b.clock.Now()
	if err := b.refuse(e, now, "publish"); err != nil {
		return err
	}
	if b.faults.dropOnTimeout(e) {
		b.record(Action{Kind: TimedOut, MessageID: e.ID, Event: e.Event, Detail: "dropped: nothing stored", DetailDE: "verworfen: nichts gespeichert"})
		b.refused++
		return fmt.Errorf("broker: publish %s: %w", e.ID, ErrTimeout)
	}
	b.store(e, now)
	b.record(Action{Kind: Published, MessageID: e.ID, Event: e.Event})
	at := now.Add(b.faults.delayOf(e))
	for _, s := range b.subs {
		b.enqueue(s, e, at)
	}
	b.faults.usedUp(e)
	if b.faults.storeOnTimeout(e) {
		b.record(Action{Kind: TimedOut, MessageID: e.ID, Event: e.Event, Detail: "stored, but the answer was lost", DetailDE: "gespeichert, aber die Antwort ging verloren"})
		b.refused++
		return fmt.Errorf("broker: publish %s: %w", e.ID, ErrTimeout)
	}
	return nil
}

// refuse counts a request to store e (a publish, a prepare) and returns
// the error the faults in force give it, recorded, or nil.
func (b *Broker) refuse(e Envelope, now time.Time, what string) error {
	b.countAttempt(e)
	b.calls++
	err := b.faults.refuse(e, now)
	if err == nil {
		return nil
	}
	b.refused++
	if b.faults.down(now) {
		b.whileDown++
	}
	detail := err.Error()
	if what != "publish" {
		detail = what + ": " + detail
	}
	b.record(Action{Kind: PublishFailed, MessageID: e.ID, Event: e.Event, Detail: detail})
	return fmt.Errorf("broker: %s %s: %w", what, e.ID, err)
}

func (b *Broker) enqueue(s *subscription, e Envelope, at time.Time) {
	n := entry{env: e, availableAt: at}
	if b.faults.holdForReorder(s.name, e) {
		b.record(Action{Kind: Held, MessageID: e.ID, Event: e.Event, Subscriber: s.name, Detail: "held back to be delivered after the next message of " + e.Event.AggregateID,
			DetailDE: "zurückgehalten, um nach der nächsten Nachricht von " + e.Event.AggregateID + " zugestellt zu werden"})
		return
	}
	s.queue = append(s.queue, n)
	if held, ok := b.faults.releaseAfter(s.name, e); ok {
		held.availableAt = at
		s.queue = append(s.queue, held)
		b.record(Action{Kind: Reordered, MessageID: held.env.ID, Event: held.env.Event, Subscriber: s.name, Detail: "delivered after " + e.ID, DetailDE: "zugestellt nach " + e.ID})
	}
	if b.faults.duplicate(s.name, e) {
		s.queue = append(s.queue, n)
		b.record(Action{Kind: Duplicated, MessageID: e.ID, Event: e.Event, Subscriber: s.name})
	}
}

// Receive hands the next available message to the subscriber, or reports
// false when there is none (or the broker is unreachable, or has no
// subscription of that name).
func (b *Broker) Receive(name string) (Delivery, bool) {
	s := b.sub(name)
	if s == nil {
		return Delivery{}, false
	}
	now := b.clock.Now()
	if b.faults.down(now) {
		return Delivery{}, false
	}
	for i, e := range s.queue {
		if e.availableAt.After(now) {
			continue
		}
		s.queue = slices.Delete(s.queue, i, i+1)
		b.nextTag++
		if s.seen[e.env.ID] {
			e.redelivered = true
			s.redeliveries++
		}
		s.seen[e.env.ID] = true
		s.inflight = append(s.inflight, inflight{tag: b.nextTag, e: e})
		out, corrupted, corruptedDE := b.faults.corrupt(e.env)
		a := Action{Kind: Delivered, MessageID: e.env.ID, Event: e.env.Event, Subscriber: name, Tag: b.nextTag, Detail: corrupted, DetailDE: corruptedDE}
		b.record(a)
		return Delivery{Tag: b.nextTag, Envelope: out, Redelivered: e.redelivered}, true
	}
	return Delivery{}, false
}

// Ack confirms a delivery; the message will not be delivered again.
func (b *Broker) Ack(name string, tag uint64) error {
	s, err := b.subOf(name)
	if err != nil {
		return fmt.Errorf("broker: ack %s/%d: %w", name, tag, err)
	}
	for i, f := range s.inflight {
		if f.tag == tag {
			s.inflight = slices.Delete(s.inflight, i, i+1)
			if !s.ackedIDs[f.e.env.ID] {
				if s.ackedIDs == nil {
					s.ackedIDs = map[string]bool{}
				}
				s.ackedIDs[f.e.env.ID] = true
				s.acked = append(s.acked, f.e.env)
			}
			b.record(Action{Kind: Acked, MessageID: f.e.env.ID, Event: f.e.env.Event, Subscriber: name, Tag: tag})
			return nil
		}
	}
	return fmt.Errorf("broker: ack %s/%d: %w", name, tag, ErrUnknownDelivery)
}

// Acked returns the messages the subscriber acknowledged, each once, in
// the order of its first acknowledgement, as the log stored them: what it
// told the broker it is done with, whatever it did with them.
func (b *Broker) Acked(name string) []Envelope { return b.mustSub(name).acked }

// Nack gives a delivery back: it goes to the end of the subscriber's queue
// and will be delivered again, after what is already waiting, so that one
// failing message does not stop the others.
func (b *Broker) Nack(name string, tag uint64) error {
	s, err := b.subOf(name)
	if err != nil {
		return fmt.Errorf("broker: nack %s/%d: %w", name, tag, err)
	}
	for i, f := range s.inflight {
		if f.tag == tag {
			s.inflight = slices.Delete(s.inflight, i, i+1)
			f.e.redelivered = true
			f.e.availableAt = b.clock.Now()
			s.queue = append(s.queue, f.e)
			if s.nacks == nil {
				s.nacks = map[string]int{}
			}
			s.nacks[f.e.env.ID]++
			b.record(Action{Kind: Nacked, MessageID: f.e.env.ID, Event: f.e.env.Event, Subscriber: name, Tag: tag})
			return nil
		}
	}
	return fmt.Errorf("broker: nack %s/%d: %w", name, tag, ErrUnknownDelivery)
}

// Redeliver queues the stored original of a message for the subscriber
// again, as replaying from a durable log does. It fails with
// ErrUnknownMessage if the log has no message with that id, and with
// ErrUnknownSubscription if the broker has no subscription of that name.
func (b *Broker) Redeliver(name, messageID string) error {
	s, err := b.subOf(name)
	if err != nil {
		return fmt.Errorf("broker: redeliver %s: %w", messageID, err)
	}
	for _, e := range b.log {
		if e.ID == messageID {
			s.queue = append(s.queue, entry{env: e, availableAt: b.clock.Now(), redelivered: true})
			b.record(Action{Kind: Redelivered, MessageID: e.ID, Event: e.Event, Subscriber: name})
			return nil
		}
	}
	return fmt.Errorf("broker: redeliver %s to %s: %w", messageID, name, ErrUnknownMessage)
}

// Disconnect drops the subscriber's connection, as a crash of its process
// does: every unacknowledged delivery goes back to the front of its queue,
// in the order it was delivered, and will be delivered again.
func (b *Broker) Disconnect(name string) {
	s := b.mustSub(name)
	if len(s.inflight) == 0 {
		return
	}
	back := make([]entry, 0, len(s.inflight)+len(s.queue))
	for _, f := range s.inflight {
		f.e.redelivered = true
		back = append(back, f.e)
		b.record(Action{Kind: Requeued, MessageID: f.e.env.ID, Event: f.e.env.Event, Subscriber: name, Tag: f.tag})
	}
	s.queue = append(back, s.queue...)
	s.inflight = nil
}

// Pending returns how many messages wait for the subscriber or are
// delivered and not yet acknowledged.
func (b *Broker) Pending(name string) int {
	s := b.mustSub(name)
	return len(s.queue) + len(s.inflight) + b.faults.heldCount(name)
}

// Holds reports whether the subscriber has a message of the aggregate it
// has not acknowledged: queued, delivered and not yet acknowledged, or held
// back by a fault. (A consumer's lag, per key: a service that reads its own
// events asks it before it decides; see package listen.) A subscription
// the broker does not have is ErrUnknownSubscription, as from a real
// broker's admin client.
func (b *Broker) Holds(name, aggregateID string) (bool, error) {
	s, err := b.subOf(name)
	if err != nil {
		return false, err
	}
	for _, e := range s.queue {
		if e.env.Event.AggregateID == aggregateID {
			return true, nil
		}
	}
	for _, f := range s.inflight {
		if f.e.env.Event.AggregateID == aggregateID {
			return true, nil
		}
	}
	for _, h := range b.faults.held {
		if h.sub == name && h.e.env.Event.AggregateID == aggregateID {
			return true, nil
		}
	}
	return false, nil
}

// NextAvailable returns when the subscriber's next queued message becomes
// deliverable, and false if none is queued.
func (b *Broker) NextAvailable(name string) (time.Time, bool) {
	s := b.mustSub(name)
	var next time.Time
	found := false
	for _, e := range s.queue {
		if !found || e.availableAt.Before(next) {
			next, found = e.availableAt, true
		}
	}
	if found {
		if end, down := b.faults.outageEnd(b.clock.Now()); down && end.After(next) {
			next = end
		}
	}
	return next, found
}

// InFlight returns the messages delivered to the subscriber and not yet
// acknowledged, in the order delivered (none for a subscription the
// broker does not have).
func (b *Broker) InFlight(name string) []Envelope {
	s := b.sub(name)
	if s == nil {
		return nil
	}
	out := make([]Envelope, len(s.inflight))
	for i, f := range s.inflight {
		out[i] = f.e.env
	}
	return out
}

// Log returns every message stored, in the order stored. Read it, do not
// change it.
func (b *Broker) Log() []Envelope { return b.log }

// StoredAt returns when each message of Log was stored, index by index:
// the broker's own record of when a message became readable, as a log's
// timestamp is. Read it, do not change it.
func (b *Broker) StoredAt() []time.Time { return b.storedAt }

// store appends e to the log at now.
func (b *Broker) store(e Envelope, now time.Time) {
	b.log = append(b.log, e)
	b.storedAt = append(b.storedAt, now)
}

// History returns everything the broker did, in order.
func (b *Broker) History() []Action { return b.history }

// KeepHistory switches the record of everything the broker does on (the
// default) or off; a simulation that renders no trace saves the cost.
func (b *Broker) KeepHistory(on bool) { b.noHistory = !on }

// Changes counts what the broker did so far (every publish, delivery, ack,
// nack, redelivery, requeue): an answer that depends only on what the
// broker holds is still right while it has not moved.
func (b *Broker) Changes() uint64 { return b.changes }

func (b *Broker) record(a Action) {
	b.changes++
	if b.noHistory {
		return
	}
	a.At = b.clock.Now()
	b.history = append(b.history, a)
}
