package sim

import (
	"outboxlab/inbox"
	"outboxlab/outbox"
	"outboxlab/sim/check"
)

// Situation is something a run went through that a test wants to see
// happen at least once: a "sometimes" assertion. A matrix row declares the
// situations it exists to produce (Point.Situations), and a row that stops
// producing them fails its test instead of silently testing nothing.
type Situation string

// The situations a run reports. They are read from what the durable
// systems recorded (the databases' commit logs, the broker's counters),
// never from what a variant says about itself.
const (
	// Retried: a failed send was recorded FAILED, to be sent again.
	Retried Situation = "retried"
	// DeadLettered: the outbox gave a message up as a DEAD_LETTER.
	DeadLettered Situation = "dead-lettered"
	// DeadLetterReplayed: an operator put a dead letter (the outbox's or
	// billing's) back on its way.
	DeadLetterReplayed Situation = "dead-letter-replayed"
	// ClaimReleased: a relay gave its own claim back unsent (its recovery
	// after a restart, or the rest of a failed batch).
	ClaimReleased Situation = "claim-released"
	// LeaseTakenOver: a relay claimed a message whose lease another relay
	// had let expire.
	LeaseTakenOver Situation = "lease-taken-over"
	// WriteConflict: the order database refused a commit because another
	// transaction had committed the same row first (a claim skipped, a
	// stale mark refused).
	WriteConflict Situation = "write-conflict"
	// LateCommit: an outbox row committed after a row with a higher id:
	// the commit-visibility gap.
	LateCommit Situation = "late-commit"
	// Redelivered: billing received a message id it had received before.
	Redelivered Situation = "redelivered"
	// GapParked: billing parked a message until its predecessor arrived.
	GapParked Situation = "gap-parked"
	// BillingDeadLettered: billing parked a message it cannot process.
	BillingDeadLettered Situation = "billing-dead-lettered"
	// CleanedUp: retention deleted SENT messages.
	CleanedUp Situation = "cleaned-up"
	// RetentionKept: a retention cleanup ran less than two hours before a
	// SENT message's retention period ended, and kept it.
	RetentionKept Situation = "retention-kept"
	// DeadLetterKept: a retention cleanup ran while a dead letter older
	// than the retention period waited for its operator, and kept it.
	DeadLetterKept Situation = "dead-letter-kept"
	// ReplayedBeforeFix: the operator replayed a dead letter before its
	// cause was fixed, and it became a dead letter again.
	ReplayedBeforeFix Situation = "replayed-before-fix"
	// ReplayRefused: the broker refused the send of a message the operator
	// had replayed (it was down), and the message got through after it.
	ReplayRefused Situation = "replay-refused"
	// ReplayedKept: a retention cleanup kept a message a replay had sent
	// within the retention period, though it was created before it.
	ReplayedKept Situation = "replayed-kept"
	// ReplayedTwice: the operator ran the replays a second time.
	ReplayedTwice Situation = "replayed-twice"
	// FailureReported: a commit that failed came back as an error from the
	// activity that made it (a relay's step or recovery, a delivery, a
	// command): the process knows, and whoever runs it can see it; or the
	// activity handled it itself: it made the same commit again (at the
	// same boundary, about the same message) before it ended. Its count
	// is of failed commits so handled. The failure sweep expects it of
	// every run: a process that swallows a failed commit goes on as if it
	// had committed.
	FailureReported Situation = "failure-reported"
)

// Situations returns every situation, in the order of a message's life.
func Situations() []Situation {
	return []Situation{LateCommit, WriteConflict, ClaimReleased, LeaseTakenOver, Retried, DeadLettered,
		Redelivered, GapParked, BillingDeadLettered, CleanedUp, RetentionKept, DeadLetterKept, ReplayedBeforeFix,
		DeadLetterReplayed, ReplayRefused, ReplayedKept, ReplayedTwice, FailureReported}
}

// SortedSituations returns the situations of counts in the order of
// Situations, each with its count.
func SortedSituations(counts map[Situation]int) []SituationCount {
	var out []SituationCount
	for _, s := range Situations() {
		if n := counts[s]; n > 0 {
			out = append(out, SituationCount{s, n})
		}
	}
	return out
}

// SituationCount is how often a situation was reached.
type SituationCount struct {
	Situation Situation
	N         int
}

// outboxSituations counts the situations of the writes to outbox rows,
// as the reader of the order database's commit log hands them over
// (check.Reader, see follow): retries, dead letters, replays, claims released and taken
// over, SENT messages cleaned up, rows committed late.
type outboxSituations struct {
	out     map[Situation]int
	highest string // the highest outbox key committed so far
}

func (r *outboxSituations) read(ow *check.OutboxWrite) {
	switch {
	case ow.Change.Deleted:
		if ow.Seen && ow.Prev.Status == outbox.Sent {
			r.out[CleanedUp]++
		}
	case !ow.Seen:
		if ow.Change.Key < r.highest {
			r.out[LateCommit]++
		}
		r.highest = max(r.highest, ow.Change.Key)
	default:
		// Claims are told apart by the process that committed them
		// (PrevBy), not by the owner names the relays write.
		if s := transition(ow.Prev, ow.Next, ow.PrevBy, ow.By); s != "" {
			r.out[s]++
		}
	}
}

// situations completes what the run went through: out holds what the
// writes to outbox rows showed (outboxSituations); the rest is read from
// billing's commit log and the broker's, the order database's and the
// operator's counters.
func (w *world) situations(out map[Situation]int) map[Situation]int {
	delete(out, "")
	for s, n := range w.ops.situations {
		out[s] += n
	}
	if w.reported > 0 {
		out[FailureReported] = w.reported
	}
	if n := w.orderDB.Conflicts(); n > 0 {
		out[WriteConflict] += n
	}
	if n := w.broker.Redeliveries(w.subscription()); n > 0 {
		out[Redelivered] += n
	}
	for _, c := range w.billingDB.Log(0) {
		for _, ch := range c.Changes {
			switch {
			case ch.Table == inbox.TableParked && !ch.Deleted:
				out[GapParked]++
			case ch.Table == inbox.TableDead && !ch.Deleted:
				out[BillingDeadLettered]++
			case ch.Table == inbox.TableDead && ch.Deleted:
				out[DeadLetterReplayed]++
			}
		}
	}
	return out
}

// transition names the situation an outbox row's change from prev to m
// is, or "": by is the process that committed it, holder the process
// that committed prev's claim (if prev is IN_FLIGHT). Claims are told
// apart by process, not by the owner names the relays write.
func transition(prev, m *outbox.Message, holder, by string) Situation {
	switch {
	case m.Status == outbox.Failed && prev.Status != outbox.Failed:
		return Retried
	case m.Status == outbox.DeadLetter && prev.Status != outbox.DeadLetter:
		return DeadLettered
	case prev.Status == outbox.DeadLetter && m.Status == outbox.Pending:
		return DeadLetterReplayed
	case prev.Status == outbox.InFlight && m.Status == outbox.Pending && holder == by:
		return ClaimReleased
	case prev.Status == outbox.InFlight && m.Status == outbox.InFlight && holder != by:
		return LeaseTakenOver
	}
	return ""
}
