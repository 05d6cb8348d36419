package cli

import (
	"regexp"
	"strings"
	"testing"
)

// TestTheInsuranceStorysViolationsSpeakOfClaims: what the judge says of
// chapter 004's story names its payment service, claims service and
// payouts (Zahlungsdienst, Schadendienst, Auszahlung) in both languages,
// never billing's words: the double payout of a payment service without
// an inbox, after the lost acknowledgement and after the relay's crash.
func TestTheInsuranceStorysViolationsSpeakOfClaims(t *testing.T) {
	billingWords := regexp.MustCompile(`(?i)billing|invoice|rechnung|bestell|berechn|journal|ledger`)
	for _, story := range []string{"claim-4711-lost-ack", "claim-4711-relay-crash"} {
		for _, c := range []struct{ lang, want string }{
			{"en", "DUPLICATE claim-4711#1: the payment service prepared 2 payouts for one release of the claim"},
			{"de", "DUPLICATE claim-4711#1: der Zahlungsdienst hat für eine Freigabe des Schadenfalls 2 Auszahlungen vorbereitet"},
		} {
			args := []string{"scenario", story, "--variant", "insurance-without-inbox", "--lang", c.lang}
			_, stdout, stderr := runLabrun(args...)
			if !strings.Contains(stdout, c.want) {
				t.Errorf("labrun %s prints no %q:\n%s%s", strings.Join(args, " "), c.want, stdout, stderr)
			}
			_, verdict, _ := strings.Cut(stdout, "\nOutcome: ")
			if c.lang == "de" {
				_, verdict, _ = strings.Cut(stdout, "\nErgebnis: ")
			}
			if w := billingWords.FindString(verdict); w != "" {
				t.Errorf("labrun %s says %q in its verdict:\n%s", strings.Join(args, " "), w, verdict)
			}
		}
	}
}
