package verify

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/real/pglab"
	"outboxlab/sim/check"
	"outboxlab/variant"
)

// Evidence is everything the judge reads after a round: facts the harness
// owns (what the service committed, what the broker stored and from which
// process, what the harness did to whom, what the database holds), never
// what the relay says of itself.
type Evidence struct {
	Committed []Committed
	Changes   []check.Change
	Orders    []domain.Order
	// Log is what the broker stored, in the order it stored it.
	Log      []*Stored
	Produces []*Produce
	// Interruptions are the kills, stops, cuts and timeouts the harness
	// made; Outages the windows in which the broker refused produces.
	Interruptions []Interruption
	Outages       []Window
	Lease         time.Duration
	Instances     int
	// Unsent are the outbox rows not SENT at the end (deleted rows are
	// sent), oldest first; History every change of a row's status.
	Unsent       []outbox.Message
	History      []StatusChange
	Quiesced     bool
	Busy         string
	Acknowledged []string
	// Ended says when each relay process that ended before the round did
	// ended (killed, or by itself); CutOff the processes that held no
	// database connection since theirs were terminated, with their last
	// lines.
	Ended  map[*Proc]time.Duration
	CutOff []CutOff
}

// StatusChange is one committed change of an outbox row's status; New is
// "" for a delete.
type StatusChange struct {
	EventID  string
	Old, New string
	// At is when the change was written, since the round started; Writer
	// the relay process whose database connection wrote it (nil: the
	// harness's, or one the harness never saw, see writerWatch).
	At     time.Duration
	Writer *Proc
	// The row's lease before and after: its owner as the relay wrote it,
	// and when it runs out since the round started (Until 0: none).
	OldOwner, NewOwner string
	OldUntil, NewUntil time.Duration
}

// Judge hands the evidence to the core's checker and adds what only the
// broker's side of the wire shows: records no committed row explains,
// an aggregate's events out of order or spread over partitions.
func Judge(e Evidence) ([]check.Violation, error) {
	byID := map[string]Committed{}
	for _, c := range e.Committed {
		byID[c.EventID] = c
	}
	published, extra := envelopes(e.Log, byID)
	extra = append(extra, keyOrder(e.Log, byID)...)
	extra = append(extra, partitions(e.Log, byID, Partitions)...)
	extra = append(extra, unacknowledged(e.Produces)...)
	w := check.World{Orders: e.Orders, Changes: e.Changes, Outbox: e.Unsent, Published: published,
		Quiesced: e.Quiesced, Busy: lang.Text{EN: e.Busy}, Transient: true, Acknowledged: e.Acknowledged}
	var err error
	if w.Ledger, w.Accounts, w.Held, err = pglab.Bill(published); err != nil {
		return nil, fmt.Errorf("verify: judge: %w", err)
	}
	for _, m := range e.Unsent {
		if m.Status == outbox.DeadLetter {
			w.DeadLetters = append(w.DeadLetters, variant.DeadLetter{Where: lang.Text{EN: "outbox"}, MessageID: m.ID,
				AggregateID: m.Event.AggregateID, Sequence: m.Event.Sequence, Reason: "the relay gave it up"})
		}
	}
	w.Publishes, w.WhileDown = attempts(e.Produces, byID, len(e.Interruptions)+len(e.Outages), e.Lease)
	w.WhileDownBudget = downBudget(e.Outages, e.Instances)
	breaches := append(twoLiveSenders(e.Log, byID, e.Interruptions, e.Produces, e.Lease), historyBreaches(e.History)...)
	for _, u := range append(breaches, leasesTaken(e.History, e.Ended)...) {
		w.Unsafe = append(w.Unsafe, lang.Text{EN: u})
	}
	vs := append(givenUp(check.Check(w), e.Unsent), extra...)
	if !e.Quiesced {
		vs = append(vs, cutOff(e.CutOff)...)
	}
	check.Sort(vs)
	return vs, nil
}

// givenUp drops the LOST of a change whose row the relay made a
// DEAD_LETTER, or that waits behind one of its aggregate: a visible dead
// letter explains it, and GAVE_UP says what is wrong (no operator replays
// it here, as the simulator's does).
func givenUp(vs []check.Violation, unsent []outbox.Message) []check.Violation {
	dead := map[string]int{} // aggregate -> its first dead letter's sequence
	for _, m := range unsent {
		if _, seen := dead[m.Event.AggregateID]; !seen && m.Status == outbox.DeadLetter {
			dead[m.Event.AggregateID] = m.Event.Sequence
		}
	}
	var out []check.Violation
	for _, v := range vs {
		if first, ok := dead[v.AggregateID]; ok && v.Outcome == variant.Lost && v.Sequence >= first {
			continue
		}
		out = append(out, v)
	}
	return out
}

// PublishBudget is how many produce requests may carry one row that
// waited the given time after its commit, in a round with the given
// number of interruptions and outages: one, and one more after each of
// them and after each lease that ran out while the row waited (another
// instance takes it over, or the interrupted one tries again), each of
// them doubled, because a Kafka client may retry a request whose answer it
// did not get (an idempotent producer's retry of a batch the broker has is
// one request more, and no second copy).
func PublishBudget(interruptions int, waited, lease time.Duration) int {
	return 2 * (1 + interruptions + int(waited/lease))
}

// envelopes turns the broker's log into what billing reads: the event the
// record's id names (its type, version, aggregate and sequence as
// committed) with the record's value as the payload, so that a wrong value
// reaches billing as it would. The key only picks the partition: a wrong
// one is a MISMATCH here, and its consequence for order keyOrder's.
func envelopes(log []*Stored, byID map[string]Committed) ([]broker.Envelope, []check.Violation) {
	var out []broker.Envelope
	var vs []check.Violation
	for _, s := range log {
		r := s.Record
		c, ok := byID[r.EventID]
		switch {
		case !r.HasID:
			vs = append(vs, check.Violation{Outcome: variant.Phantom, Detail: english(
				"the record at p%d/%d (key %s) has no event id header: no consumer can tell which event it is", s.Partition, s.Offset, r.Key)})
			continue
		case !ok:
			vs = append(vs, check.Violation{Outcome: variant.Phantom, Detail: english(
				"the record at p%d/%d carries event id %q, which no committed row has", s.Partition, s.Offset, r.EventID)})
			continue
		case r.Key != c.Record.AggregateID:
			vs = append(vs, check.Violation{Outcome: variant.Mismatch, AggregateID: c.Record.AggregateID, Sequence: c.Record.Sequence,
				Detail: english("%s was published with key %q: its aggregate is %q", r.EventID, r.Key, c.Record.AggregateID)})
		}
		rec := c.Record
		rec.Payload = string(r.Value)
		out = append(out, broker.Envelope{ID: r.EventID, Event: rec})
	}
	return out, vs
}

// keyOrder reads the log as a consumer does, partition by partition:
// each aggregate's events must all be in one partition, and the first copy
// of each must follow the first copy of the one before it.
func keyOrder(log []*Stored, byID map[string]Committed) []check.Violation {
	sorted := slices.Clone(log)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		return a.Partition < b.Partition || a.Partition == b.Partition && a.Offset < b.Offset
	})
	seen := map[string]bool{}
	partition := map[string]*Stored{} // the aggregate's first record
	last := map[string]*Stored{}      // the aggregate's highest event so far
	var vs []check.Violation
	for _, s := range sorted {
		c, ok := byID[s.Record.EventID]
		if !ok || seen[s.Record.EventID] {
			continue
		}
		seen[s.Record.EventID] = true
		agg, seq := c.Record.AggregateID, c.Record.Sequence
		if p, ok := partition[agg]; ok && p.Partition != s.Partition {
			vs = append(vs, check.Violation{Outcome: variant.OutOfOrder, AggregateID: agg, Sequence: seq, Detail: english(
				"stored in partition %d, #%d of the same aggregate in partition %d: a consumer reads partitions independently, in any order", s.Partition, byID[p.Record.EventID].Record.Sequence, p.Partition)})
			continue
		}
		partition[agg] = s
		if l, ok := last[agg]; ok && byID[l.Record.EventID].Record.Sequence > seq {
			vs = append(vs, check.Violation{Outcome: variant.OutOfOrder, AggregateID: agg, Sequence: seq, Detail: english(
				"first stored at p%d/%d, after #%d at p%d/%d: a consumer reads #%d first", s.Partition, s.Offset, byID[l.Record.EventID].Record.Sequence, l.Partition, l.Offset, byID[l.Record.EventID].Record.Sequence)})
			continue
		}
		last[agg] = s
	}
	return vs
}

// unacknowledged finds produce requests that asked for no answer: their
// records are stored unseen, and the relay cannot know they were.
func unacknowledged(produces []*Produce) []check.Violation {
	var vs []check.Violation
	for _, p := range produces {
		if p.Acks == 0 {
			vs = append(vs, check.Violation{Outcome: variant.Lost, Detail: english(
				"produce #%d from %s asked for no acknowledgement (acks=0): the relay cannot know the broker stored %s, and marks it sent all the same", p.N, p.From(), describe(p.Records))})
		}
	}
	return vs
}

// english is a detail of labrun-real verify, which speaks English only.
func english(format string, args ...any) lang.Text {
	return lang.Text{EN: fmt.Sprintf(format, args...)}
}
