package metrics

import (
	"sort"
	"time"

	"outboxlab/inbox"
	"outboxlab/outbox"
	"outboxlab/store"
)

// Sample is the dashboard at one time of a run.
type Sample struct {
	// At is the time since the run's start.
	At time.Duration
	// Outbox is the outbox measured at At (see outbox.Measure).
	Outbox outbox.Metrics
	// SentSince counts the messages that became SENT (or were deleted on
	// send) since the sample before: the throughput, which says little
	// about a relay's health on its own (chapter 003's takeaway 6).
	SentSince int
	// Held counts the messages billing holds unapplied: parked behind a
	// gap, or its own dead letters.
	Held int
	// Reads is the most rows one relay transaction (a claim, or a
	// send's mark) read since the sample before (store.Commit.Reads):
	// what one poll costs the database. With the outbox's partial index
	// it stays near the number of unsent messages; without it, it is
	// the whole table.
	Reads int
	// Locked is the most outbox rows one transaction held locked until
	// its commit since the sample before (store.Change.Locked: chapter
	// 003's relay, FOR UPDATE SKIP LOCKED across the publish), and
	// LockedFor the longest such a transaction held its locks
	// (Commit.LockedFor: from its first lock to its commit): chapter 000's "Publisher liest zu große Batches und
	// blockiert die Datenbank", measured. A relay that claims by a lease
	// commits its claim at once and holds no lock.
	Locked    int
	LockedFor time.Duration
	// Missing counts the changes the service committed that have no
	// effect downstream yet (an invoice, a line, a credit; a payout):
	// chapter 004's "freigegebene Fälle, zu denen der Zahlungsdienst
	// keine Auszahlung vorbereitet hat". With an outbox it returns to 0
	// after a fault; a change sent without one and lost stays missing.
	Missing int
	// Alerts are the rules that fire at At.
	Alerts []Rule
}

// Unsent is how many messages wait in the outbox, in any status but SENT.
func (s Sample) Unsent() int {
	n := 0
	for status, c := range s.Outbox.ByStatus {
		if status != outbox.Sent {
			n += c
		}
	}
	return n
}

// Series samples a run every step from its start to end (times since
// epoch, the run's start), and once more at end: the order database's
// outbox and billing's holdings, rebuilt from their commit logs, with the
// alerts of rules.
func Series(orderLog, billingLog []store.Commit, epoch time.Time, end, step time.Duration, rules []Rule) []Sample {
	if step <= 0 {
		step = time.Second
	}
	box := map[string]outbox.Message{}
	held := map[string]bool{}
	book := newBooks()
	var out []Sample
	oi, bi := 0, 0
	sentTotal, sentBefore, reads := 0, 0, 0
	locked, lockedFor := 0, time.Duration(0)
	for at := time.Duration(0); ; at += step {
		if at > end {
			if len(out) > 0 && out[len(out)-1].At == end {
				break
			}
			at = end // the last sample is at the end, on the grid or not
		}
		now := epoch.Add(at)
		for ; oi < len(orderLog) && !orderLog[oi].At.After(now); oi++ {
			book.commit(orderLog[oi])
			sent, relayed := applyOutbox(box, orderLog[oi])
			sentTotal += sent
			if relayed {
				reads = max(reads, orderLog[oi].Reads)
			}
			if n, d := locks(orderLog[oi]); n > 0 {
				locked, lockedFor = max(locked, n), max(lockedFor, d)
			}
		}
		for ; bi < len(billingLog) && !billingLog[bi].At.After(now); bi++ {
			applyHeld(held, billingLog[bi])
			book.effect(billingLog[bi])
		}
		s := Sample{At: at, Outbox: measure(box, now), SentSince: sentTotal - sentBefore, Held: len(held), Reads: reads, Locked: locked, LockedFor: lockedFor, Missing: book.missing()}
		sentBefore, reads, locked, lockedFor = sentTotal, 0, 0, 0
		for _, r := range rules {
			if r.Fires(s) {
				s.Alerts = append(s.Alerts, r)
			}
		}
		out = append(out, s)
	}
	return out
}

// locks returns how many outbox rows commit c held locked, and for how
// long.
func locks(c store.Commit) (int, time.Duration) {
	n := 0
	for _, ch := range c.Changes {
		if ch.Locked && ch.Table == outbox.Table {
			n++
		}
	}
	return n, c.LockedFor
}

// applyOutbox applies one commit's outbox rows and returns how many
// messages it sent (marked SENT, or deleted while unsent: deleted on
// send), and whether it is a relay's: it claimed or sent a message.
func applyOutbox(box map[string]outbox.Message, c store.Commit) (sent int, relayed bool) {
	for _, ch := range c.Changes {
		if ch.Table != outbox.Table {
			continue
		}
		prev, had := box[ch.Key]
		if ch.Deleted {
			if had && prev.Status != outbox.Sent {
				sent++ // deleted on send (a retention cleanup deletes SENT rows only)
				relayed = true
			}
			delete(box, ch.Key)
			continue
		}
		m := ch.Value.(outbox.Message)
		if m.Status == outbox.Sent && had && prev.Status != outbox.Sent {
			sent++
		}
		relayed = relayed || (had && (m.Status == outbox.InFlight || m.Status == outbox.Sent))
		box[ch.Key] = m
	}
	return sent, relayed
}

// applyHeld applies one commit's changes to what billing holds: parked
// messages and its dead letters, by message id.
func applyHeld(held map[string]bool, c store.Commit) {
	for _, ch := range c.Changes {
		if ch.Table != inbox.TableParked && ch.Table != inbox.TableDead {
			continue
		}
		key := ch.Table + "/" + ch.Key
		if ch.Deleted {
			delete(held, key)
		} else {
			held[key] = true
		}
	}
}

// measure is outbox.Measure of the outbox as box holds it.
func measure(box map[string]outbox.Message, now time.Time) outbox.Metrics {
	keys := make([]string, 0, len(box))
	for k := range box {
		keys = append(keys, k)
	}
	sort.Strings(keys) // oldest first: keys follow creation
	var unsent []outbox.Message
	sent := 0
	for _, k := range keys {
		if m := box[k]; m.Status == outbox.Sent {
			sent++
		} else {
			unsent = append(unsent, m)
		}
	}
	return outbox.Measure(unsent, sent, now)
}

// Step returns a sampling step for a span: a round figure that gives at
// most about max samples.
func Step(span time.Duration, max int) time.Duration {
	for _, s := range []time.Duration{
		time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
		time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour,
	} {
		if span/s <= time.Duration(max) {
			return s
		}
	}
	return span / time.Duration(max)
}
