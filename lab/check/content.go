package check

import (
	"fmt"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/orders"
	"outboxlab/store"
)

// Change is one committed business change of an order, as billing must
// apply it: the kind of effect and its amount (negative for a credit).
type Change struct {
	OrderID  string
	Sequence int
	Kind     billing.EffectKind
	Amount   domain.Money
}

func (c Change) String() string {
	return fmt.Sprintf("%s %s", c.Kind, signed(c.Amount))
}

// signed prints an amount with its sign, "+3.00 EUR" or "-12.00 EUR".
func signed(m domain.Money) string {
	if m.Minor < 0 {
		return m.String()
	}
	return "+" + m.String()
}

// Changes derives the committed business changes from the order
// database's commit log: every committed version of an order is one change,
// read from the difference to the version before it. It does not look at
// events or messages, so a variant cannot talk the checker into its own
// view of what was committed.
func Changes(orderLog []store.Commit) []Change {
	var out []Change
	last := map[string]domain.Order{}
	for _, c := range orderLog {
		for _, ch := range c.Changes {
			if ch.Table != orders.Table || ch.Deleted {
				continue
			}
			o := ch.Value.(domain.Order)
			prev, seen := last[o.ID]
			last[o.ID] = o
			if seen && o.Version == prev.Version {
				continue // rewritten without a change
			}
			change := Change{OrderID: o.ID, Sequence: o.Version}
			switch {
			case !seen || o.Version == 1:
				change.Kind, change.Amount = billing.Invoice, o.Total
			case o.Status == domain.Cancelled && prev.Status != domain.Cancelled:
				change.Kind, change.Amount = billing.Credit, domain.Money{Minor: -prev.Total.Minor, Currency: prev.Total.Currency}
			default:
				change.Kind, change.Amount = billing.Line, domain.Money{Minor: o.Total.Minor - prev.Total.Minor, Currency: o.Total.Currency}
			}
			out = append(out, change)
		}
	}
	return out
}

// content compares what billing applied with what was committed, change by
// change, for every change that was applied exactly once (the others are
// LOST, PHANTOM or DUPLICATE already), and every account with its ledger
// (its billed sum, and cancelled exactly when the ledger has the credit).
// That the ledger nets to the order's final total (zero when cancelled)
// follows: the changes are read as differences of the committed totals, so
// when each was applied once with its amount, their sum is the final total.
func content(w World, effects map[change]int) []Violation {
	var vs []Violation
	applied := map[change]billing.Entry{}
	net := map[string]int64{}
	credited := map[string]bool{} // the ledger has the cancel's credit
	for _, e := range w.Ledger {
		applied[change{e.OrderID, e.Sequence}] = e
		net[e.OrderID] += e.Amount.Minor
		credited[e.OrderID] = credited[e.OrderID] || e.Kind == billing.Credit
	}
	for _, c := range w.Changes {
		k := change{c.OrderID, c.Sequence}
		if effects[k] != 1 {
			continue
		}
		e := applied[k]
		if e.Kind != c.Kind || e.Amount != c.Amount {
			vs = append(vs, Violation{Mismatch, c.OrderID, c.Sequence,
				fmt.Sprintf("billed %s %s, the change was %s", e.Kind, signed(e.Amount), c)})
		}
	}
	for _, a := range w.Accounts {
		if a.Billed.Minor != net[a.OrderID] {
			vs = append(vs, Violation{Outcome: Mismatch, AggregateID: a.OrderID,
				Detail: fmt.Sprintf("the account shows %s billed, its ledger nets to %s",
					a.Billed, domain.Money{Minor: net[a.OrderID], Currency: a.Billed.Currency})})
		}
		if a.Cancelled != credited[a.OrderID] {
			vs = append(vs, Violation{Outcome: Mismatch, AggregateID: a.OrderID,
				Detail: fmt.Sprintf("the account says cancelled: %v, its ledger says %v", a.Cancelled, credited[a.OrderID])})
		}
	}
	return vs
}

// contract checks the message contract on everything the broker stored:
// one change travels under one message id. A resend under a new id defeats
// every consumer that deduplicates by id, and the broker's deduplication.
func contract(published []broker.Envelope) []Violation {
	type sameMessage struct {
		agg, typ string
		seq      int
		payload  string
	}
	first := map[sameMessage]string{}
	reported := map[sameMessage]bool{}
	var vs []Violation
	for _, e := range published {
		k := sameMessage{e.Event.AggregateID, e.Event.Type, e.Event.Sequence, e.Event.Payload}
		id, seen := first[k]
		switch {
		case !seen:
			first[k] = e.ID
		case id != e.ID && !reported[k]:
			reported[k] = true
			vs = append(vs, Violation{Duplicate, e.Event.AggregateID, e.Event.Sequence,
				fmt.Sprintf("the same %s was published as %s and again as %s: a consumer that deduplicates by message id applies it twice", e.Event.Type, id, e.ID)})
		}
	}
	return vs
}
