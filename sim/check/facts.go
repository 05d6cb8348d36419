package check

import (
	"outboxlab/billing"
	"outboxlab/lang"
	"outboxlab/variant"
)

// facts are what Check reads of the committed orders, billing's ledger and
// accounts and the acknowledged commands, gathered in one pass over each
// and kept order by order: every check of the books asks them (which
// changes are committed, how often billing applied each and with which
// entry, what an order's ledger nets to), instead of each check making
// its own map of the same rows, which was most of what the final checks
// cost.
type facts struct {
	orders map[string]*orderFacts
	// listed are the orders' facts in the order of World.Orders, one for
	// each (an order listed twice has the same facts twice); committed
	// has each once, in the order of its first listing.
	listed, committed []*orderFacts
	// others are the effects of changes no committed order has: of an
	// unknown order, or outside 1 to its highest committed version. Each
	// is a PHANTOM.
	others map[change]*effect
	terms  Terms
	// outOfOrder are the ledger's entries applied after a later change
	// of their order (OUT_OF_ORDER), found as the ledger is read.
	outOfOrder []Violation
}

// orderFacts are the facts of one order id.
type orderFacts struct {
	id string
	// upTo is the order's highest committed version (0: none, an order
	// only the ledger, the accounts or the answers name), version the
	// one World.Orders lists last: they differ for an order listed twice
	// only.
	upTo, version int
	// effects are billing's effects of the committed changes: change seq
	// is effects[seq-1].
	effects []effect
	// last is the ledger's entry of the highest sequence so far (seen:
	// there is one), as the ledger is read in the order applied.
	last *billing.Entry
	// net is what the order's ledger sums to, credited whether it holds
	// a credit.
	net      int64
	credited bool
	// told counts the commands about it the service answered with
	// success (World.Acknowledged).
	told int
	// account is billing's account of the order (the last one listed;
	// nil: none); judged says accounts compared it with the order.
	account *billing.Account
	judged  bool
}

// effect is how often billing applied one change, and the last entry
// that did (in World.Ledger: facts point into the world's slices and
// copy nothing).
type effect struct {
	n    int
	last *billing.Entry
}

// factsOf gathers w's facts.
func factsOf(w World) *facts {
	n := len(w.Orders)
	both := make([]*orderFacts, n, 2*n) // listed, then committed: one allocation
	f := &facts{orders: make(map[string]*orderFacts, n), listed: both, committed: both[n:n], terms: w.Terms.orDefault()}
	own := make([]orderFacts, len(w.Orders)) // one allocation for the listed orders
	for i := range w.Orders {
		o := &w.Orders[i]
		of, seen := f.orders[o.ID]
		if !seen {
			of = &own[i]
			of.id = o.ID
			f.orders[o.ID] = of
		}
		of.upTo = max(of.upTo, o.Version)
		of.version = o.Version
		f.listed[i] = of
	}
	changes := 0
	for i, of := range f.listed {
		if &own[i] == of { // its first listing
			f.committed = append(f.committed, of)
			changes += of.upTo
		}
	}
	effects := make([]effect, changes) // one allocation for the committed changes
	for _, of := range f.committed {
		if of.upTo > 0 {
			of.effects, effects = effects[:of.upTo:of.upTo], effects[of.upTo:]
		}
	}
	for i := range w.Ledger {
		e := &w.Ledger[i]
		of := f.order(e.OrderID)
		ef := f.effectOf(of, e.Sequence, true)
		ef.n++
		ef.last = e
		of.net += e.Amount.Minor
		of.credited = of.credited || e.Kind == billing.Credit
		if of.last != nil && e.Sequence < of.last.Sequence {
			f.outOfOrder = append(f.outOfOrder, Violation{variant.OutOfOrder, e.OrderID, e.Sequence,
				lang.Textf(lang.Text{EN: "%s of #%d applied after %s of #%d", DE: "%s von #%d nach %s von #%d angewendet"}, KindText(e.Kind), e.Sequence, KindText(of.last.Kind), of.last.Sequence)})
		}
		if of.last == nil || e.Sequence > of.last.Sequence {
			of.last = e
		}
	}
	for i := range w.Accounts {
		a := &w.Accounts[i]
		f.order(a.OrderID).account = a
	}
	for _, id := range w.Acknowledged {
		f.order(id).told++
	}
	return f
}

// order returns the facts of order id, new ones for an id no committed
// order has.
func (f *facts) order(id string) *orderFacts {
	of, ok := f.orders[id]
	if !ok {
		of = &orderFacts{id: id}
		f.orders[id] = of
	}
	return of
}

// effectOf returns the effect of change seq of the order of, nil for one
// nothing applied unless add.
func (f *facts) effectOf(of *orderFacts, seq int, add bool) *effect {
	if seq >= 1 && seq <= of.upTo {
		return &of.effects[seq-1]
	}
	c := change{of.id, seq}
	ef, ok := f.others[c]
	if !ok && add {
		if f.others == nil {
			f.others = map[change]*effect{}
		}
		ef = &effect{}
		f.others[c] = ef
	}
	return ef
}

// applied returns how often billing applied change c, and the last entry
// that did (the zero entry for none).
func (f *facts) applied(c change) (int, billing.Entry) {
	of, ok := f.orders[c.order]
	if !ok {
		return 0, billing.Entry{}
	}
	if ef := f.effectOf(of, c.seq, false); ef != nil && ef.last != nil {
		return ef.n, *ef.last
	}
	return 0, billing.Entry{}
}
