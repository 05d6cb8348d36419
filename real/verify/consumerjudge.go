package verify

import (
	"fmt"
	"slices"

	"outboxlab/billing"
	"outboxlab/domain"
	"outboxlab/lang"
	"outboxlab/sim/check"
	"outboxlab/variant"
)

// ConsumerEvidence is everything the judge reads after a consumer round:
// what the service committed, what the harness published and where the
// broker stored it, the group's committed offsets, and what the billing
// database holds: facts, never what the consumer says of itself.
type ConsumerEvidence struct {
	Committed    []Committed
	Changes      []check.Change
	Orders       []domain.Order
	Acknowledged []string
	// Published is every record the broker stored, in the order stored.
	Published []Published
	// Offsets are the group's committed offsets at the end, by partition
	// (a partition without one is absent).
	Offsets map[int32]int64
	// Ledger is billing_ledger in the order its rows committed.
	Ledger      []billing.Entry
	Accounts    []billing.Account
	DeadLetters []DeadLetterRow
	Quiesced    bool
	Busy        string
}

// DeadLetterRow is one row of billing_dead_letters.
type DeadLetterRow struct {
	EventID   string
	Partition int32
	Offset    int64
	Reason    string
}

// JudgeConsumer hands the evidence to the core's checker (each committed
// change applied once, in its order's sequence, with its amount, and
// every account equal to its order) and reads what only the broker's side
// shows: a change the checker finds LOST whose record the group has not
// read past is STUCK (the consumer never got there); one whose record was
// dead-lettered is GAVE_UP (it was readable: what failed was transient);
// a record no consumer can read that is neither dead-lettered nor applied
// vanished (LOST), or holds its partition up (STUCK).
func JudgeConsumer(e ConsumerEvidence) []check.Violation {
	byID := map[string]Committed{}
	for _, c := range e.Committed {
		byID[c.EventID] = c
	}
	dead, wrong := deadLettered(e.DeadLetters, e.Published)
	w := check.World{Orders: e.Orders, Changes: e.Changes, Ledger: e.Ledger, Accounts: e.Accounts,
		Quiesced: e.Quiesced, Busy: lang.Text{EN: e.Busy}, Acknowledged: e.Acknowledged}
	var vs []check.Violation
	given := map[string]int{} // order → the first sequence given up
	for _, c := range e.Committed {
		if d, ok := dead[c.EventID]; ok {
			vs = append(vs, check.Violation{Outcome: variant.GaveUp, AggregateID: c.Record.AggregateID, Sequence: c.Record.Sequence, Detail: english(
				"%s (%s, p%d/%d) was dead-lettered (%q), but it is a readable event of the contract: what failed was transient (the database, the broker), and a retry would have applied it",
				c.EventID, c.Record.Type, d.Partition, d.Offset, d.Reason)})
			if s, seen := given[c.Record.AggregateID]; !seen || c.Record.Sequence < s {
				given[c.Record.AggregateID] = c.Record.Sequence
			}
		}
	}
	for _, v := range check.Check(w) {
		if v.Outcome == variant.Lost && v.Sequence > 0 {
			if s, ok := given[v.AggregateID]; ok && v.Sequence >= s {
				continue // the dead letter explains it, and GAVE_UP says what is wrong
			}
			r, ok := unread(e, v.AggregateID, v.Sequence)
			switch {
			case ok:
				v = check.Violation{Outcome: variant.Stuck, AggregateID: v.AggregateID, Sequence: v.Sequence, Detail: english(
					"%s at p%d/%d is not applied, and the group has not read past it (its offset on p%d is %s): the consumer never got there",
					r.EventID, r.Partition, r.Offset, r.Partition, offsetOf(e.Offsets, r.Partition))}
			case r.EventID != "":
				continue // read past: readPast says so, with the record
			}
		}
		vs = append(vs, v)
	}
	vs = append(vs, readPast(e, dead, given)...)
	vs = append(vs, planned(e, dead)...)
	vs = append(vs, strayDeadLetters(wrong, e.Published)...)
	check.Sort(vs)
	return vs
}

// deadLettered returns the dead letters by the event id of the record
// they name, and the dead letters that name no record the broker holds.
// A dead letter names a record by its partition and offset and carries
// the record's event-id (none only for a record without one): all three,
// or it is not that record's, and a consumer that wrote the key, another
// record's id or the next offset has dead-lettered no record at all.
func deadLettered(rows []DeadLetterRow, published []Published) (map[string]DeadLetterRow, []DeadLetterRow) {
	out := map[string]DeadLetterRow{}
	var wrong []DeadLetterRow
	for _, d := range rows {
		i := slices.IndexFunc(published, func(p Published) bool {
			return p.Partition == d.Partition && p.Offset == d.Offset && p.EventID == d.EventID
		})
		if i < 0 {
			wrong = append(wrong, d)
			continue
		}
		out[published[i].EventID] = d
	}
	return out, wrong
}

// strayDeadLetters judges the dead letters that name no record: MISMATCH,
// with what the broker holds where they point.
func strayDeadLetters(wrong []DeadLetterRow, published []Published) []check.Violation {
	var vs []check.Violation
	for _, d := range wrong {
		there := "no record"
		for _, p := range published {
			if p.Partition == d.Partition && p.Offset == d.Offset {
				there = fmt.Sprintf("%s, event-id %q", p.Key, p.EventID)
			}
		}
		id := "NULL"
		if d.EventID != "" {
			id = fmt.Sprintf("%q", d.EventID)
		}
		vs = append(vs, check.Violation{Outcome: variant.Mismatch, Detail: english(
			"the dead letter (event_id %s, p%d/%d, %q) names no record the broker holds: p%d/%d holds %s; a dead letter carries the partition, the offset and the event-id of the record it gives up",
			id, d.Partition, d.Offset, d.Reason, d.Partition, d.Offset, there)})
	}
	return vs
}

// unread returns the first copy of the change's event, and whether the
// group has not read past any copy of it: no copy is below the group's
// committed offset of its partition. A change never published has no
// copy ("" and false).
func unread(e ConsumerEvidence, agg string, seq int) (Published, bool) {
	var first Published
	for _, c := range e.Committed {
		if c.Record.AggregateID != agg || c.Record.Sequence != seq {
			continue
		}
		for _, p := range e.Published {
			if p.EventID != c.EventID || p.Planned != "" {
				continue
			}
			if off, ok := e.Offsets[p.Partition]; ok && p.Offset < off {
				return p, false
			}
			if first.EventID == "" {
				first = p
			}
		}
	}
	return first, first.EventID != ""
}

// readPast judges rule 4 as an invariant of the round's end: every record
// below the group's committed offset of its partition is applied (its
// event's effect is in the ledger) or a dead letter. One that is neither
// was passed by an offset commit before its effect (a commit of what was
// polled, at a SIGTERM, at a revoke, or any time), and nobody reads it
// again: LOST, once per event. The events of an order behind one given
// up are GAVE_UP's.
func readPast(e ConsumerEvidence, dead map[string]DeadLetterRow, given map[string]int) []check.Violation {
	applied := map[string]bool{}
	for _, l := range e.Ledger {
		applied[l.MessageID] = true
	}
	byID := map[string]Committed{}
	for _, c := range e.Committed {
		byID[c.EventID] = c
	}
	said := map[string]bool{}
	var vs []check.Violation
	for _, p := range e.Published {
		off, ok := e.Offsets[p.Partition]
		c, committed := byID[p.EventID]
		if !ok || p.Offset >= off || p.Planned != "" || !committed || applied[p.EventID] || said[p.EventID] || dead[p.EventID] != (DeadLetterRow{}) {
			continue
		}
		if s, ok := given[c.Record.AggregateID]; ok && c.Record.Sequence >= s {
			continue
		}
		said[p.EventID] = true
		vs = append(vs, check.Violation{Outcome: variant.Lost, AggregateID: c.Record.AggregateID, Sequence: c.Record.Sequence, Detail: english(
			"%s (%s) has no effect and is no dead letter, and the group read past its record (%s at p%d/%d; its offset on p%d is %d): an offset commit passed it before its effect (rule 4: at a SIGTERM, at a revoke, or a commit of what was polled), and nobody reads it again",
			p.EventID, c.Record.Type, p.EventID, p.Partition, p.Offset, p.Partition, off)})
	}
	return vs
}

// planned judges the records no consumer can read: each must be a dead
// letter; one of an order of its own applied is the checker's PHANTOM
// already.
func planned(e ConsumerEvidence, dead map[string]DeadLetterRow) []check.Violation {
	applied := map[string]bool{}
	for _, l := range e.Ledger {
		applied[l.OrderID] = true
	}
	var vs []check.Violation
	for _, p := range e.Published {
		if p.Planned == "" || dead[p.EventID] != (DeadLetterRow{}) || applied[p.Key] && p.Planned != PlannedPoison {
			continue
		}
		if off, ok := e.Offsets[p.Partition]; ok && p.Offset < off {
			vs = append(vs, check.Violation{Outcome: variant.Lost, AggregateID: p.Key, Detail: english(
				"%s at p%d/%d, a record no consumer can read (%s), was read past, and is neither applied nor in billing_dead_letters: it vanished without a trace",
				p.EventID, p.Partition, p.Offset, p.Planned)})
			continue
		}
		vs = append(vs, check.Violation{Outcome: variant.Stuck, AggregateID: p.Key, Detail: english(
			"%s at p%d/%d, a record no consumer can read (%s), holds its partition up (the group's offset on p%d is %s): a record that cannot be read is a dead letter, not tried again and again",
			p.EventID, p.Partition, p.Offset, p.Planned, p.Partition, offsetOf(e.Offsets, p.Partition))})
	}
	return vs
}

func offsetOf(offsets map[int32]int64, p int32) string {
	if off, ok := offsets[p]; ok {
		return fmt.Sprint(off)
	}
	return "not committed"
}
