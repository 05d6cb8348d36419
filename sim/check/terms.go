package check

import "outboxlab/lang"

// Terms are the sentences the checker writes about the effects downstream,
// in the words of the system under test: billing's invoices for the
// order service's orders (OrderTerms), or the payment service's payouts
// for the claims service's releases (ClaimTerms, chapter 004). A zero
// Terms is OrderTerms. Each sentence takes the arguments its field's doc
// names, in that order.
type Terms struct {
	// Consumer names the downstream service where a dead letter lies
	// ("in %s").
	Consumer lang.Text
	// Phantom: the number of effects for a change never committed.
	Phantom lang.Text
	// Duplicate: how often one change was applied.
	Duplicate lang.Text
	// Never is a committed change without its effect; NeverHeld the same
	// while the consumer holds its message (the reason).
	Never, NeverHeld lang.Text
	// AppliedHeld: a message the consumer holds though it applied it (the
	// message id, the reason).
	AppliedHeld lang.Text
	// HeldStuck: a message held for a predecessor stuck in the outbox (the
	// reason, the predecessor's sequence).
	HeldStuck lang.Text
	// ParkedTransient: a dead letter of the consumer's under a transient
	// fault (message id, attempts); ParkedStorm: more attempts than its
	// policy allows (message id, attempts, allowed).
	ParkedTransient, ParkedStorm lang.Text
	// Differs: an effect unlike its change (the effect's kind, its signed
	// amount, the change, the change's amount).
	Differs lang.Text
	// AccountTotal: the consumer's sum for an aggregate against what the
	// committed aggregate owes (the sum, "totals X" or "is cancelled");
	// AccountCurrency: its sum in another currency (the sum, its
	// currency, the aggregate's, what it owes); NoAccount: no sum at all
	// though every change was applied (the changes, what it owes).
	AccountTotal, AccountCurrency, NoAccount lang.Text
	// Overcharged: an effect after which an aggregate was charged more
	// than its total (the entry's key, the aggregate, the sum so far, the
	// sequence, the total).
	Overcharged lang.Text
}

// OrderTerms are the order service's and billing's words.
var OrderTerms = Terms{
	Consumer:        lang.Text{EN: "billing", DE: "Billing"},
	Phantom:         lang.Text{EN: "billing applied %d effect(s) for a change the order service never committed", DE: "Billing hat %d Wirkung(en) für eine Änderung angewendet, die der Bestelldienst nie committet hat"},
	Duplicate:       lang.Text{EN: "billing applied the change %d times", DE: "Billing hat die Änderung %d-mal angewendet"},
	Never:           lang.Text{EN: "committed, but billing never applied it", DE: "committet, aber Billing hat sie nie angewendet"},
	NeverHeld:       lang.Text{EN: "committed, but billing never applied it (billing holds it: %s)", DE: "committet, aber Billing hat sie nie angewendet (Billing hält sie: %s)"},
	AppliedHeld:     lang.Text{EN: "billing applied it and still holds message %s (%s)", DE: "Billing hat sie angewendet und hält die Nachricht %s noch (%s)"},
	HeldStuck:       lang.Text{EN: "billing holds it (%s), and #%d is stuck in the outbox", DE: "Billing hält sie (%s), und #%d steckt in der Outbox fest"},
	ParkedTransient: lang.Text{EN: "billing put message %s aside as a dead letter after %d attempt(s), though its fault was transient: the next attempt would have worked (retry is the protection against transient errors)", DE: "Billing hat die Nachricht %s nach %d Versuch(en) als Dead Letter beiseitegelegt, obwohl ihre Störung vorübergehend war: der nächste Versuch hätte geklappt (Retry ist der Schutz gegen vorübergehende Fehler)"},
	ParkedStorm:     lang.Text{EN: "billing tried message %s %d times before it parked it, its policy parks it after %d", DE: "Billing hat die Nachricht %s %d-mal versucht, bevor es sie parkte; seine Strategie parkt sie nach %d"},
	Differs:         lang.Text{EN: "billed %[1]s %[2]s, the change was %[3]s", DE: "berechnet %[1]s %[2]s, die Änderung war %[3]s"},
	AccountTotal:    lang.Text{EN: "the account shows %s billed, the committed order %s", DE: "das Konto zeigt %s berechnet, die committete Bestellung %s"},
	AccountCurrency: lang.Text{EN: "the account shows %s billed, in %s, the order is in %s (want %s)", DE: "das Konto zeigt %s berechnet, in %s, die Bestellung ist in %s (erwartet: %s)"},
	NoAccount:       lang.Text{EN: "billing applied all %d change(s) and holds no account for the order (want %s billed)", DE: "Billing hat alle %d Änderung(en) angewendet und führt kein Konto für die Bestellung (erwartet: %s berechnet)"},
	Overcharged:     lang.Text{EN: "ledger %s: %s charged %s after #%d, more than its total %s", DE: "Journal %s: %s mit %s belastet nach #%d, mehr als ihre Summe %s"},
}

// ClaimTerms are chapter 004's words: the claims service (Schadendienst)
// releases a claim (Schadenfall), the payment service (Zahlungsdienst)
// prepares its payout (Auszahlung).
var ClaimTerms = Terms{
	Consumer:        lang.Text{EN: "the payment service", DE: "dem Zahlungsdienst"},
	Phantom:         lang.Text{EN: "the payment service prepared %d payout(s) for a release the claims service never committed", DE: "der Zahlungsdienst hat %d Auszahlung(en) für eine Freigabe vorbereitet, die der Schadendienst nie committet hat"},
	Duplicate:       lang.Text{EN: "the payment service prepared %d payouts for one release of the claim", DE: "der Zahlungsdienst hat für eine Freigabe des Schadenfalls %d Auszahlungen vorbereitet"},
	Never:           lang.Text{EN: "released, but the payment service never prepared its payout", DE: "freigegeben, aber der Zahlungsdienst hat die Auszahlung nie vorbereitet"},
	NeverHeld:       lang.Text{EN: "released, but the payment service never prepared its payout (it holds the message: %s)", DE: "freigegeben, aber der Zahlungsdienst hat die Auszahlung nie vorbereitet (er hält die Nachricht: %s)"},
	AppliedHeld:     lang.Text{EN: "the payment service prepared the payout and still holds message %s (%s)", DE: "der Zahlungsdienst hat die Auszahlung vorbereitet und hält die Nachricht %s noch (%s)"},
	HeldStuck:       lang.Text{EN: "the payment service holds the message (%s), and #%d is stuck in the outbox", DE: "der Zahlungsdienst hält die Nachricht (%s), und #%d steckt in der Outbox fest"},
	ParkedTransient: lang.Text{EN: "the payment service put message %s aside as a dead letter after %d attempt(s), though its fault was transient: the next attempt would have worked (retry is the protection against transient errors)", DE: "der Zahlungsdienst hat die Nachricht %s nach %d Versuch(en) als Dead Letter beiseitegelegt, obwohl ihre Störung vorübergehend war: der nächste Versuch hätte geklappt (Retry ist der Schutz gegen vorübergehende Fehler)"},
	ParkedStorm:     lang.Text{EN: "the payment service tried message %s %d times before it parked it, its policy parks it after %d", DE: "der Zahlungsdienst hat die Nachricht %s %d-mal versucht, bevor er sie parkte; seine Strategie parkt sie nach %d"},
	Differs:         lang.Text{EN: "prepared a payout of %[2]s, the release was of %[4]s", DE: "Auszahlung über %[2]s vorbereitet, die Freigabe war über %[4]s"},
	AccountTotal:    lang.Text{EN: "the payouts add up to %s, the released claim %s", DE: "die Auszahlungen ergeben %s, der freigegebene Schadenfall %s"},
	AccountCurrency: lang.Text{EN: "the payouts add up to %s, in %s, the claim is in %s (want %s)", DE: "die Auszahlungen ergeben %s, in %s, der Schadenfall ist in %s (erwartet: %s)"},
	NoAccount:       lang.Text{EN: "the payment service took all %d release(s) and prepared no payout for the claim (want %s paid out)", DE: "der Zahlungsdienst hat alle %d Freigabe(n) angenommen und keine Auszahlung für den Schadenfall vorbereitet (erwartet: %s ausgezahlt)"},
	Overcharged:     lang.Text{EN: "payout %s: %s paid out %s after #%d, more than its released amount %s", DE: "Auszahlung %s: für %s %s ausgezahlt nach #%d, mehr als der freigegebene Betrag %s"},
}

// orDefault returns t, or OrderTerms for a zero Terms.
func (t Terms) orDefault() Terms {
	if t.Duplicate.EN == "" {
		return OrderTerms
	}
	return t
}
