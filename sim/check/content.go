package check

import (
	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/store"
	"outboxlab/variant"
)

// Change is one committed business change of an order, as billing must
// apply it: the kind of effect and its amount (negative for a credit).
type Change struct {
	OrderID  string
	Sequence int
	Kind     billing.EffectKind
	Amount   domain.Money
}

func (c Change) String() string { return c.Text().EN }

// Text is the change in both languages: "line +3.00 EUR", "Position
// +3,00 EUR".
func (c Change) Text() lang.Text {
	return lang.Textf(lang.Plain("%s %s"), KindText(c.Kind), signed(c.Amount))
}

// signed prints an amount with its sign, "+3.00 EUR" or "-12.00 EUR"
// ("+3,00 EUR" in German).
func signed(m domain.Money) lang.Text {
	if m.Minor < 0 {
		return MoneyText(m)
	}
	return lang.Textf(lang.Plain("+%s"), MoneyText(m))
}

// MoneyText is an amount as each language writes it: "1250.00 EUR",
// "1.250,00 EUR".
func MoneyText(m domain.Money) lang.Text { return lang.Money(m.Amount(), string(m.Currency)) }

// KindText names an effect's kind in both languages: invoice, line and
// credit are billing's words, Rechnung, Position and Gutschrift in German.
func KindText(k billing.EffectKind) lang.Text {
	if t, ok := kindTexts[k]; ok {
		return t
	}
	return lang.Plain(string(k))
}

var kindTexts = map[billing.EffectKind]lang.Text{
	billing.Invoice: {EN: "invoice", DE: "Rechnung"},
	billing.Line:    {EN: "line", DE: "Position"},
	billing.Credit:  {EN: "credit", DE: "Gutschrift"},
}

// HeldReason is why a consumer holds message p, in both languages: for
// one parked behind a gap, the sequence number it waits for (waiting,
// which the lab reads from the facts), in the lab's words; with waiting 0,
// the reason as the consumer wrote it, quoted in German.
func HeldReason(p inbox.Parked, waiting int) lang.Text {
	if waiting > 0 {
		return lang.Textf(lang.Text{EN: "waiting for #%d", DE: "wartet auf #%d"}, waiting)
	}
	return lang.Text{EN: p.Reason, DE: "„" + p.Reason + "“"}
}

// Changes derives the committed business changes from the order
// database's commit log: every committed version of an order is one change,
// read from the difference to the version before it. It does not look at
// events or messages, so a variant cannot talk the checker into its own
// view of what was committed. In chapter 004's story the database holds
// claims: a claim released for payout is one change, whose effect is one
// payout of its amount (an invoice, in the checker's words).
func Changes(orderLog []store.Commit) []Change {
	var out []Change
	last := map[string]domain.Order{}
	for _, c := range orderLog {
		for _, ch := range c.Changes {
			out = appendChange(out, last, ch)
		}
	}
	return out
}

// content compares what billing applied with what was committed, change by
// change, for every change that was applied exactly once (the others are
// LOST, PHANTOM or DUPLICATE already), every account of an order whose
// every change was applied once with the committed order (see accounts),
// and every other account with its ledger (its billed sum, and cancelled
// exactly when the ledger has the credit).
// That the ledger nets to the order's final total (zero when cancelled)
// follows: the changes are read as differences of the committed totals, so
// when each was applied once with its amount, their sum is the final total.
func content(w World, f *facts) []Violation {
	var vs []Violation
	for _, c := range w.Changes {
		n, e := f.applied(change{c.OrderID, c.Sequence})
		if n != 1 {
			continue
		}
		if e.Kind != c.Kind || e.Amount != c.Amount {
			vs = append(vs, Violation{variant.Mismatch, c.OrderID, c.Sequence,
				lang.Textf(f.terms.Differs, KindText(e.Kind), signed(e.Amount), c.Text(), signed(c.Amount))})
		}
	}
	vs = append(vs, accounts(w, f)...)
	for _, a := range w.Accounts {
		of := f.orders[a.OrderID]
		if of.judged {
			continue // compared with its committed order
		}
		if a.Billed.Minor != of.net {
			vs = append(vs, Violation{Outcome: variant.Mismatch, AggregateID: a.OrderID,
				Detail: lang.Textf(lang.Text{
					EN: "the account shows %s billed, its ledger nets to %s",
					DE: "das Konto zeigt %s berechnet, sein Journal ergibt netto %s"},
					MoneyText(a.Billed), MoneyText(domain.Money{Minor: of.net, Currency: a.Billed.Currency}))})
		}
		if a.Cancelled != of.credited {
			vs = append(vs, Violation{Outcome: variant.Mismatch, AggregateID: a.OrderID,
				Detail: lang.Textf(lang.Text{
					EN: "the account says cancelled: %v, its ledger says %v",
					DE: "das Konto sagt storniert: %s, sein Journal sagt %s"}, yesNo(a.Cancelled), yesNo(of.credited))})
		}
	}
	return vs
}

// accounts compares every account with the committed orders, for every
// order whose every change billing applied exactly once (the others are
// LOST, PHANTOM or DUPLICATE already): billing holds an account for it, in
// the order's currency, showing the order's final total billed (nothing
// once it is cancelled), and cancelled exactly when the order is. The
// ledger's lines may each be right while the account is not: a consumer
// that sums in floating point, or books every order in one currency, or
// never writes the account. It marks the orders whose accounts it judged
// (orderFacts.judged).
func accounts(w World, f *facts) []Violation {
	var vs []Violation
	for i := range w.Orders {
		o, of := &w.Orders[i], f.listed[i]
		if w.Changes == nil || !appliedOnce(o, of) {
			continue
		}
		of.judged = true
		want := o.Total
		if o.Status == domain.Cancelled {
			want = domain.Money{Currency: o.Total.Currency}
		}
		a := of.account
		switch {
		case a == nil:
			vs = append(vs, Violation{Outcome: variant.Mismatch, AggregateID: o.ID,
				Detail: lang.Textf(f.terms.NoAccount, o.Version, MoneyText(want))})
		case a.Billed.Currency != want.Currency:
			vs = append(vs, Violation{Outcome: variant.Mismatch, AggregateID: o.ID,
				Detail: lang.Textf(f.terms.AccountCurrency, MoneyText(a.Billed), a.Billed.Currency, want.Currency, MoneyText(want))})
		case a.Billed != want:
			vs = append(vs, Violation{Outcome: variant.Mismatch, AggregateID: o.ID,
				Detail: lang.Textf(f.terms.AccountTotal, MoneyText(a.Billed), owes(*o, want))})
		case a.Cancelled != (o.Status == domain.Cancelled):
			vs = append(vs, Violation{Outcome: variant.Mismatch, AggregateID: o.ID,
				Detail: lang.Textf(lang.Text{
					EN: "the account says cancelled: %v, the order is %s",
					DE: "das Konto sagt storniert: %s, die Bestellung ist %s"}, yesNo(a.Cancelled), o.Status)})
		}
	}
	return vs
}

// appliedOnce reports whether billing applied every change of o exactly
// once; of are its facts (o's version is at most their highest).
func appliedOnce(o *domain.Order, of *orderFacts) bool {
	for seq := 1; seq <= o.Version; seq++ {
		if of.effects[seq-1].n != 1 {
			return false
		}
	}
	return true
}

// owes says what a committed order owes: its total, or nothing once
// cancelled.
func owes(o domain.Order, want domain.Money) lang.Text {
	if o.Status == domain.Cancelled {
		return lang.Textf(lang.Text{EN: "is cancelled (want %s)", DE: "ist storniert (erwartet: %s)"}, MoneyText(want))
	}
	return lang.Textf(lang.Text{EN: "totals %s", DE: "beträgt %s"}, MoneyText(want))
}

// yesNo is a truth value as a sentence prints it: true and false in
// English (as the lab always printed them), ja and nein in German.
func yesNo(b bool) lang.Text {
	if b {
		return lang.Text{EN: "true", DE: "ja"}
	}
	return lang.Text{EN: "false", DE: "nein"}
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
	first := make(map[sameMessage]string, len(published))
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
			vs = append(vs, Violation{variant.Duplicate, e.Event.AggregateID, e.Event.Sequence,
				lang.Textf(lang.Text{
					EN: "the same %s was published as %s and again as %s: a consumer that deduplicates by message id applies it twice",
					DE: "dasselbe %s wurde als %s und noch einmal als %s veröffentlicht: ein Consumer, der nach der Nachrichten-ID dedupliziert, wendet es zweimal an"},
					e.Event.Type, id, e.ID)})
		}
	}
	return vs
}
