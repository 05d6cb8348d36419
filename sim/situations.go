package sim

import (
	"outboxlab/inbox"
	"outboxlab/outbox"
	"outboxlab/store"
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
	// command): the process knows, and whoever runs it can see it. The
	// failure sweep expects it of every run: a process that swallows a
	// failed commit goes on as if it had committed.
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

// situations reads what the run went through from the order database's
// and billing's commit logs and the broker's and store's counters.
func (w *world) situations() map[Situation]int {
	out := map[Situation]int{}
	last := map[string]outbox.Message{}
	holder := map[string]string{} // key -> the process that committed its claim
	highest := ""
	for _, c := range w.orderDB.Log(0) {
		by := committer(c)
		for _, ch := range c.Changes {
			if ch.Table != outbox.Table {
				continue
			}
			prev, seen := last[ch.Key]
			if ch.Deleted {
				if seen && prev.Status == outbox.Sent {
					out[CleanedUp]++
				}
				delete(last, ch.Key)
				continue
			}
			m := ch.Value.(outbox.Message)
			last[ch.Key] = m
			if !seen {
				if m.Status == outbox.InFlight {
					holder[ch.Key] = by
				}
				if ch.Key < highest {
					out[LateCommit]++
				}
				highest = max(highest, ch.Key)
				continue
			}
			out[transition(prev, m, holder[ch.Key], by)]++
			if m.Status == outbox.InFlight {
				holder[ch.Key] = by
			}
		}
	}
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

// committer is the process that made commit c, as the database recorded
// it (the simulator's session: see world.running).
func committer(c store.Commit) string {
	if c.Process != "" {
		return c.Process
	}
	return c.Owner
}

// transition names the situation an outbox row's change from prev to m
// is, or "": by is the process that committed it, holder the process
// that committed prev's claim (if prev is IN_FLIGHT). Claims are told
// apart by process, not by the owner names the relays write.
func transition(prev, m outbox.Message, holder, by string) Situation {
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
