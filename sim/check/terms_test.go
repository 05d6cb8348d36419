package check_test

import (
	"reflect"
	"regexp"
	"testing"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/sim/check"
	"outboxlab/variant"
)

// orderWords are the words of billing and its orders that a sentence
// about chapter 004's claims must not use.
var orderWords = regexp.MustCompile(`(?i)billing|invoice|rechnung|order|bestell|berechn|journal|ledger|konto|account`)

// TestClaimTermsSpeakOfClaims: every sentence of ClaimTerms, in both
// languages, is filled in and uses none of billing's words.
func TestClaimTermsSpeakOfClaims(t *testing.T) {
	v := reflect.ValueOf(check.ClaimTerms)
	for i := range v.NumField() {
		text := v.Field(i).Interface().(lang.Text)
		for _, s := range []string{text.EN, text.DE} {
			if s == "" {
				t.Errorf("ClaimTerms.%s is empty in a language: %+v", v.Type().Field(i).Name, text)
			}
			if w := orderWords.FindString(s); w != "" {
				t.Errorf("ClaimTerms.%s says %q: %q", v.Type().Field(i).Name, w, s)
			}
		}
	}
}

// TestTheJudgeSpeaksOfClaimsInTheClaimsStory: a world judged with
// ClaimTerms says what broke in chapter 004's words, in both languages:
// a release paid twice, a payout for a release never committed, a release
// never paid while the payment service holds its message, a payout of
// the wrong amount; with the zero Terms the same world is billing's.
func TestTheJudgeSpeaksOfClaimsInTheClaimsStory(t *testing.T) {
	eur := func(s string) domain.Money { return domain.MustMoney(s, "EUR") }
	w := check.World{
		Orders: []domain.Order{{ID: "claim-4711", Version: 1, Total: eur("1250.00")}, {ID: "claim-4712", Version: 1, Total: eur("300.00")}, {ID: "claim-4713", Version: 1, Total: eur("80.00")}},
		Changes: []check.Change{{OrderID: "claim-4711", Sequence: 1, Amount: eur("1250.00")}, {OrderID: "claim-4712", Sequence: 1, Amount: eur("300.00")},
			{OrderID: "claim-4713", Sequence: 1, Amount: eur("80.00")}},
		Quiesced: true,
		Held:     []inbox.Parked{{Envelope: broker.Envelope{ID: "e-5532", Event: domain.Record{AggregateID: "claim-4712", Sequence: 1}}, Reason: "waits for #0"}},
	}
	w.Ledger = append(w.Ledger, entry("claim-4711", 1), entry("claim-4711", 1), entry("claim-4714", 1), entry("claim-4713", 1))
	w.Ledger[3].Amount = eur("8.00")
	w.Ledger[3].Kind = w.Changes[2].Kind
	w.Terms = check.ClaimTerms
	claims := check.Check(w)
	want := map[variant.Outcome]string{
		variant.Duplicate: "DUPLICATE claim-4711#1: der Zahlungsdienst hat für eine Freigabe des Schadenfalls 2 Auszahlungen vorbereitet",
		variant.Phantom:   "PHANTOM claim-4714#1: der Zahlungsdienst hat 1 Auszahlung(en) für eine Freigabe vorbereitet, die der Schadendienst nie committet hat",
		variant.Lost:      "LOST claim-4712#1: freigegeben, aber der Zahlungsdienst hat die Auszahlung nie vorbereitet (er hält die Nachricht: „waits for #0“)",
		variant.Mismatch:  "MISMATCH claim-4713#1: Auszahlung über +8,00 EUR vorbereitet, die Freigabe war über +80,00 EUR",
	}
	for o, text := range want {
		found := false
		for _, v := range claims {
			found = found || v.In(lang.German) == text
		}
		if !found {
			t.Errorf("no %s violation %q among:\n%v", o, text, claims)
		}
	}
	for _, v := range claims {
		for _, s := range []string{v.In(lang.English), v.In(lang.German)} {
			if w := orderWords.FindString(s); w != "" {
				t.Errorf("a violation of the claims story says %q: %s", w, s)
			}
		}
	}
	w.Terms = check.Terms{}
	for _, v := range check.Check(w) {
		if v.Outcome == variant.Duplicate && v.In(lang.English) != "DUPLICATE claim-4711#1: billing applied the change 2 times" {
			t.Errorf("the zero Terms are not billing's: %s", v)
		}
	}
}
