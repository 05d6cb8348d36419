package sim

import (
	"time"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/sim/check"
	"outboxlab/store"
	"outboxlab/variant"
)

// workEnd is what the run's work left when quiesce was over, before the
// operator's work: whether it was quiet (busy says what was not), the
// outbox rows unsent and the dead letters then, the publishes so far, and
// both databases' commit logs up to that time, at.
type workEnd struct {
	quiet bool
	// stored and tries are how many messages the broker had stored and
	// how many publish attempts there were (world.tries).
	stored, tries int
	// hidden are the dead letters the facts show and no port reports
	// (world.hiddenDeadLetters); unheld the messages billing acknowledged
	// unapplied that its port did not hold (world.hiddenHolds).
	hidden, unheld []check.Hidden
	busy           lang.Text
	unsent         []outbox.Message
	deadLetters    []variant.DeadLetter
	beforeReplay   []check.Attempts
	orderLog       []store.Commit
	billingLog     []store.Commit
	at             time.Duration
}

// judge is a run's fourth phase: it ends what is left, gathers the
// evidence of the run from the databases, the broker and the processes,
// and checks it against what the run's work left (end).
func (w *world) judge(end workEnd) Result {
	w.abandon()
	w.notePark()
	all, ledger, accounts := w.books()
	end.heldAll(ledger, w.terms().Consumer)
	// The order database's commit log, read once as it grew (follow) for
	// every check that reads it: safety, the committed changes, the
	// outbox's situations, the failed marks.
	w.follow()
	unsafe, changes := w.log.reader.End(ledger, all, w.terms())
	faults := w.plannedFaults()
	vs := check.Check(check.World{
		Orders:             all,
		Ledger:             ledger,
		Outbox:             end.unsent,
		Held:               w.held(),
		Quiesced:           end.quiet,
		Busy:               end.busy,
		Changes:            changes,
		Accounts:           accounts,
		Published:          w.broker.Log(),
		StoredAt:           w.broker.StoredAt(),
		WorkEnded:          Epoch.Add(end.at),
		PastDeadLetters:    w.cfg.Variant.PublishesPastDeadLetters,
		DeadLetters:        end.deadLetters,
		Transient:          faults.Transient(w.relayPolicy, w.consumerPolicy),
		Publishes:          w.publishes(w.interruptions()),
		PublishBudget:      check.PublishBudget(w.relayPolicy, 1+w.ops.unfixedReplays, w.interruptions()),
		BeforeReplay:       end.beforeReplay,
		BeforeReplayBudget: check.PublishBudget(w.relayPolicy, w.ops.duringRun, w.interruptions()),
		WhileDown:          w.relayDown,
		WhileDownBudget:    check.OutageBudget(w.relayPolicy, w.downFaults(faults), w.cfg.Relays+w.interruptions()),
		Tries:              w.tries,
		FailedMarks:        w.log.marks,
		Relay:              w.relayPolicy,
		Consumer:           w.consumerPolicy,
		Exercise:           w.exercise(),
		Unsafe:             unsafe,
		Acknowledged:       w.acknowledged,
		Delays:             w.delays,
		Unreplayed:         w.unreplayed,
		Hidden:             end.hidden,
		Vanished:           w.ops.vanished,
		ReplayResets:       w.ops.resets,
		BillingParked:      w.parks.parked,
		Terms:              w.terms(),
	})
	return Result{
		Unsafe:         unsafe,
		Situations:     w.situations(w.log.situations.out),
		Outcome:        check.Worst(vs),
		Violations:     vs,
		Fired:          w.fired,
		Stalls:         w.stalled,
		Kills:          w.killed,
		CommitFailures: w.failed,
		Missteps:       Missteps{Unhandled: w.unhandled, Swallowed: w.swallowed, Panics: w.panics},
		Reached:        w.reached(),
		Trace:          w.trace,
		Duration:       w.clock.Since(),
		OrderLog:       end.orderLog,
		BillingLog:     end.billingLog,
		WorkEnded:      end.at,
		Busy:           end.busy,
	}
}

// orderLog is what the simulator reads from the order database's commit
// log as it grows (follow): the checker's reader of it (check.Reader),
// and what the writes to outbox rows tell the simulator itself.
type orderLog struct {
	reader   *check.Reader
	followed uint64 // the last commit fed to reader
	// situations are what the writes to outbox rows showed, marks the
	// writes that matter to a message's backoff (check.FailedMark).
	situations outboxSituations
	marks      []check.FailedMark
}

// follow feeds the commits made since it last ran to the reader of the
// order database's log: every commit is read once, whenever the
// simulator next needs what the log says (a cleanup's kept rows, the
// judge), never walked again from the start.
func (w *world) follow() {
	l := &w.log
	if l.reader == nil {
		l.situations.out = map[Situation]int{}
		l.reader = check.NewReader(w.relayPolicy.Retention, len(w.cfg.Workload), w.readOutboxWrite)
	}
	commits := w.orderDB.Log(l.followed)
	for i := range commits {
		l.reader.Add(&commits[i])
	}
	if n := len(commits); n > 0 {
		l.followed = commits[n-1].Seq
	}
}

// readOutboxWrite is what the simulator reads from a write to an outbox
// row (see follow): its situation, and whether it matters to backoff.
func (w *world) readOutboxWrite(ow *check.OutboxWrite) {
	w.log.situations.read(ow)
	if claim, ok := backoffMark(ow); ok {
		n := ow.Next
		w.log.marks = append(w.log.marks, check.FailedMark{MessageID: n.ID, At: ow.Commit.At, By: ow.By, Claim: claim,
			AggregateID: n.Event.AggregateID, Sequence: n.Event.Sequence, Attempts: n.Attempts, RetryAt: n.NextAttemptAt, LeaseUntil: n.LeaseUntil})
	}
}

// heldAll adds to the hidden messages and the dead letters what billing
// acknowledged unapplied at the end of the work and its port did not
// hold (unheld), whose change the end of the run shows applied (ledger):
// billing held it where the port does not look, and the operator's
// replay put it through. One still unapplied billing dropped: LOST.
func (end *workEnd) heldAll(ledger []billing.Entry, where lang.Text) {
	applied := appliedChanges(ledger)
	for _, h := range end.unheld {
		if applied[broker.Target{AggregateID: h.AggregateID, Sequence: h.Sequence}] {
			end.hidden = append(end.hidden, h)
			end.deadLetters = append(end.deadLetters, variant.DeadLetter{Where: where, MessageID: h.MessageID, AggregateID: h.AggregateID, Sequence: h.Sequence, Reason: "held unapplied, by the facts"})
		}
	}
}

// publishes returns the broker's count of publish attempts per message.
func (w *world) publishes(interruptions int) []check.Attempts {
	var out []check.Attempts
	for _, a := range w.broker.Attempts() {
		at := check.Attempts{MessageID: a.ID, AggregateID: a.Event.AggregateID, Sequence: a.Event.Sequence, N: a.N}
		// A message the operator had to put back more often than the
		// run's count of replays (a fix made under an outage, after which
		// it was given up again and replayed again) has a round of
		// attempts for each time it was put back.
		if n := w.ops.putBacks[a.ID]; n > 1+w.ops.unfixedReplays {
			at.Budget = check.PublishBudget(w.relayPolicy, n, interruptions)
		}
		out = append(out, at)
	}
	return out
}

// backoffMark reports whether ow matters to a message's backoff
// (check.FailedMark), and whether as a claim: the row becomes IN_FLIGHT,
// or FAILED with more attempts than before (a release that hands a
// FAILED claim back, its count unchanged, records no failure).
func backoffMark(ow *check.OutboxWrite) (claim, ok bool) {
	switch {
	case ow.Change.Deleted:
		return false, false
	case ow.Next.Status == outbox.InFlight:
		return true, true
	}
	return false, ow.Next.Status == outbox.Failed && (!ow.Seen || ow.Next.Attempts > ow.Prev.Attempts)
}
