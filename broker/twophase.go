package broker

import (
	"fmt"
	"slices"
	"time"
)

// The actions of a two-phase commit: a message prepared (stored in the
// first phase, invisible to every subscriber), committed (logged and
// delivered) or aborted (forgotten).
const (
	PreparedAction  ActionKind = "prepared"
	CommittedAction ActionKind = "committed"
	AbortedAction   ActionKind = "aborted"
)

// preparedEntry is a message in the first phase of a two-phase commit.
type preparedEntry struct {
	env Envelope
	at  time.Time
}

// Prepare is the first phase of a two-phase commit (XA): the broker stores
// e durably and hands it to nobody until CommitPrepared; AbortPrepared
// forgets it. It fails as Publish does while the broker is down or
// refuses e, and then nothing is prepared: a service that needs the
// broker's vote cannot commit without it (chapter 004).
func (b *Broker) Prepare(e Envelope) error {
	now := b.clock.Now()
	if err := b.refuse(e, now, "prepare"); err != nil {
		return err
	}
	b.prepared = append(b.prepared, preparedEntry{env: e, at: now})
	b.record(Action{Kind: PreparedAction, MessageID: e.ID, Event: e.Event})
	return nil
}

// CommitPrepared is the second phase: the prepared message with id is
// logged and handed to the subscribers, as a Publish would. It fails while
// the broker is down (the message stays prepared: the coordinator commits
// it again later), and with ErrUnknownMessage when nothing with id is
// prepared.
func (b *Broker) CommitPrepared(id string) error {
	now := b.clock.Now()
	i := slices.IndexFunc(b.prepared, func(p preparedEntry) bool { return p.env.ID == id })
	if i < 0 {
		return fmt.Errorf("broker: commit %s: %w", id, ErrUnknownMessage)
	}
	if b.faults.down(now) {
		return fmt.Errorf("broker: commit %s: %w", id, ErrUnavailable)
	}
	e := b.prepared[i].env
	b.prepared = slices.Delete(b.prepared, i, i+1)
	b.store(e, now)
	b.record(Action{Kind: CommittedAction, MessageID: e.ID, Event: e.Event})
	for _, s := range b.subs {
		b.enqueue(s, e, now)
	}
	return nil
}

// AbortPrepared forgets the prepared message with id; it is never
// delivered. Aborting what is not prepared does nothing.
func (b *Broker) AbortPrepared(id string) error {
	if b.faults.down(b.clock.Now()) {
		return fmt.Errorf("broker: abort %s: %w", id, ErrUnavailable)
	}
	i := slices.IndexFunc(b.prepared, func(p preparedEntry) bool { return p.env.ID == id })
	if i >= 0 {
		e := b.prepared[i].env
		b.prepared = slices.Delete(b.prepared, i, i+1)
		b.record(Action{Kind: AbortedAction, MessageID: e.ID, Event: e.Event})
	}
	return nil
}

// InDoubt returns the messages prepared before a time and neither
// committed nor aborted since, oldest first: what a transaction
// coordinator resolves after a crash.
func (b *Broker) InDoubt(before time.Time) []Envelope {
	var out []Envelope
	for _, p := range b.prepared {
		if p.at.Before(before) {
			out = append(out, p.env)
		}
	}
	return out
}
