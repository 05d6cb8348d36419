package check

import (
	"time"

	"outboxlab/lang"
	"outboxlab/variant"
)

// A declared policy is judged both ways. Its budgets (STORM, GAVE_UP)
// judge a relay that does more than it declares: tries too often, gives
// up too soon. lazy judges one that does less: what it wrote into a row
// against what it declares. A relay that declares a 30 s backoff cap and
// writes a retry time five minutes ahead, or declares a 10 s lease and
// claims for a minute, keeps messages waiting that its policy says go, and
// passes every row that does not happen to wait for them: it is LATE.

// lazy finds the writes of the relays that keep a message waiting longer
// than the declared policy p says: a failed send's retry time (RetryAt of
// a FailedMark that records a failure) later than p's whole backoff for
// its count of failed sends (the jitter only shortens it), and a claim's
// lease (LeaseUntil of a claim) longer than p's Lease. Each is measured
// from the commit that wrote it, on the database's clock: a relay that
// computed it earlier and committed later only shortens it. A policy that
// declares no backoff is not judged by it; one that declares no lease is
// held to the lab's longest (MaxLease). One violation per message, its
// first.
func lazy(marks []FailedMark, p variant.RelayPolicy) []Violation {
	var vs []Violation
	judged := map[string]bool{}
	for _, m := range marks {
		if judged[m.MessageID] || m.At.IsZero() {
			continue
		}
		var v Violation
		switch {
		case m.Claim && p.Lease == 0 && m.LeaseUntil.Sub(m.At) > variant.MaxLease:
			// A policy that declares no lease is held to the lab's
			// longest: declaring none must not hide an hour's claim.
			v = Violation{variant.Late, m.AggregateID, m.Sequence, lang.Textf(lang.Text{
				EN: "%s claimed message %s until %s, %s after its claim committed; its policy declares no lease, and the lab accepts at most %s: a relay that dies holding it leaves it waiting that long",
				DE: "%s claimte die Nachricht %s bis %s, %s nach dem Commit des Claims; seine Strategie nennt keine Lease, und das Labor erlaubt höchstens %s: ein Relay, das mit ihr stirbt, lässt sie so lange warten"},
				m.By, m.MessageID, clock(m.LeaseUntil), lang.Duration(m.LeaseUntil.Sub(m.At).Round(time.Millisecond)), lang.Duration(variant.MaxLease))}
		case m.Claim && p.Lease > 0 && m.LeaseUntil.Sub(m.At) > p.Lease:
			v = Violation{variant.Late, m.AggregateID, m.Sequence, lang.Textf(lang.Text{
				EN: "%s claimed message %s until %s, %s after its claim committed, where its policy says a lease of %s: a relay that dies holding it leaves it waiting that long",
				DE: "%s claimte die Nachricht %s bis %s, %s nach dem Commit des Claims, wo seine Strategie eine Lease von %s nennt: ein Relay, das mit ihr stirbt, lässt sie so lange warten"},
				m.By, m.MessageID, clock(m.LeaseUntil), lang.Duration(m.LeaseUntil.Sub(m.At).Round(time.Millisecond)), lang.Duration(p.Lease))}
		case !m.Claim && p.BackoffBase > 0 && !m.RetryAt.IsZero() && m.RetryAt.Sub(m.At) > p.LongestBackoff(m.Attempts):
			v = Violation{variant.Late, m.AggregateID, m.Sequence, lang.Textf(lang.Text{
				EN: "after its failed send %d, message %s waited %s, until %s, where its policy says %s (backoff from %s, capped at %s): a relay slower than it declares keeps the message back for nothing",
				DE: "nach ihrem %d. gescheiterten Senden wartete die Nachricht %s %s, bis %s, wo ihre Strategie %s nennt (Backoff ab %s, höchstens %s): ein Relay, das langsamer ist, als es erklärt, hält die Nachricht ohne Grund zurück"},
				m.Attempts, m.MessageID, lang.Duration(m.RetryAt.Sub(m.At).Round(time.Millisecond)), clock(m.RetryAt),
				lang.Duration(p.LongestBackoff(m.Attempts)), lang.Duration(p.BackoffBase), lang.Duration(p.BackoffCap))}
		default:
			continue
		}
		judged[m.MessageID] = true
		vs = append(vs, v)
	}
	return vs
}
