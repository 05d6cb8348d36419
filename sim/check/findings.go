package check

import (
	"fmt"
	"math"
	"strings"
	"time"

	"outboxlab/lang"
	"outboxlab/variant"
)

// PolicyFinding is something wrong with a declared policy itself, whatever the
// run's messages did: a policy that hammers a down broker, retries for
// ever, gives up within an outage the chapters call transient, pauses so
// long that the broker's return goes unnoticed, keeps nothing for the
// retention period, or parks a message at its first failure.
type PolicyFinding struct {
	Outcome variant.Outcome
	Text    lang.Text
}

// Violation returns the finding as a violation of the run.
func (f PolicyFinding) Violation() Violation { return Violation{Outcome: f.Outcome, Detail: f.Text} }

// Exercise is what a run put the policies to: a finding is reported only
// in a run that puts its part of the policy to the test (a run without a
// refused publish says nothing about backoff).
type Exercise struct {
	Faults Faults
	// Refused counts the publishes the broker refused or that timed out.
	Refused int
	// Kills counts the relays killed during the run: a killed relay's
	// claims wait out their lease.
	Kills int
}

// PolicyFindings returns the findings on the policies r and c that run e puts
// to the test, in the order of the policies' fields. A zero policy is not
// judged.
func PolicyFindings(r variant.RelayPolicy, c variant.ConsumerPolicy, e Exercise) []PolicyFinding {
	var out []PolicyFinding
	if r != (variant.RelayPolicy{}) {
		out = relayFindings(r, e)
	}
	if c != (variant.ConsumerPolicy{}) {
		out = append(out, consumerFindings(c, e.Faults)...)
	}
	return out
}

// relayFindings finds what is wrong with the relay's policy r where run e
// puts it to the test.
func relayFindings(r variant.RelayPolicy, e Exercise) []PolicyFinding {
	var out []PolicyFinding
	add := func(o variant.Outcome, t lang.Text, args ...any) {
		out = append(out, PolicyFinding{o, lang.Textf(t, args...)})
	}
	transient := len(e.Faults.Outages) > 0 || e.Faults.Timeouts > 0
	window, ends := r.RetryWindow()
	switch {
	case e.Faults.Rejected && r.MaxAttempts < 1:
		add(variant.Stuck, lang.Text{
			EN: "the relay's policy never gives a message up (MaxAttempts %d): one the broker refuses for good is retried for ever, never a visible dead letter (chapter 000, section 8: Retry ohne Grenze ist eine Produktionsgefahr)",
			DE: "die Strategie des Relays gibt eine Nachricht nie auf (MaxAttempts %d): eine, die der Broker dauerhaft abweist, wird endlos wiederholt und nie ein sichtbarer Dead Letter (Kapitel 000, Abschnitt 8: Retry ohne Grenze ist eine Produktionsgefahr)",
		}, r.MaxAttempts)
	case e.Faults.Rejected && !ends:
		add(variant.Stuck, lang.Text{
			EN: "the relay's policy retries a message for more than %s before it gives it up (MaxAttempts %d), the lab allows at most %s: a message the broker refuses for good must become a visible dead letter (chapter 000, section 8)",
			DE: "die Strategie des Relays wiederholt eine Nachricht länger als %s, bevor sie sie aufgibt (MaxAttempts %d), das Labor erlaubt höchstens %s: eine Nachricht, die der Broker dauerhaft abweist, muss ein sichtbarer Dead Letter werden (Kapitel 000, Abschnitt 8)",
		}, span(variant.MaxRetryWindow), r.MaxAttempts, span(variant.MaxRetryWindow))
	}
	if transient && e.Refused > 0 && ends && window < variant.TransientOutage {
		add(variant.GaveUp, lang.Text{
			EN: "the relay's policy gives a message up after %d attempts within %s of failures, but the chapters call a %s outage transient (chapter 001): its retries must outlast it",
			DE: "die Strategie des Relays gibt eine Nachricht nach %d Versuchen innerhalb von %s Fehlschlägen auf, die Kapitel nennen aber einen Ausfall von %s vorübergehend (Kapitel 001): ihre Wiederholungen müssen ihn überdauern",
		}, r.MaxAttempts, span(window), span(variant.TransientOutage))
	}
	if e.Refused > 0 {
		out = append(out, hammering(r)...)
		if r.PauseCap > variant.MaxPause {
			add(variant.Late, lang.Text{
				EN: "the relay's policy pauses up to %s after failed sends, the lab allows at most %s: the broker's return goes unnoticed while messages wait (chapter 004)",
				DE: "die Strategie des Relays pausiert nach gescheiterten Sendeversuchen bis zu %s, das Labor erlaubt höchstens %s: die Rückkehr des Brokers bleibt unbemerkt, während Nachrichten warten (Kapitel 004)",
			}, span(r.PauseCap), span(variant.MaxPause))
		}
	}
	if e.Kills > 0 && r.Lease > variant.MaxLease {
		add(variant.Late, lang.Text{
			EN: "the relay's policy claims messages under a lease of %s, the lab allows at most %s: a relay that dies holding claims leaves its messages waiting that long before another relay may send them (chapter 000, section 5: ein Crash darf eine Nachricht nicht dauerhaft unsichtbar machen)",
			DE: "die Strategie des Relays claimt Nachrichten mit einer Lease von %s, das Labor erlaubt höchstens %s: ein Relay, das mit Claims stirbt, lässt seine Nachrichten so lange warten, bevor ein anderes Relay sie senden darf (Kapitel 000, Abschnitt 5: ein Crash darf eine Nachricht nicht dauerhaft unsichtbar machen)",
		}, span(r.Lease), span(variant.MaxLease))
	}
	if r.Retention < variant.MinRetention {
		add(variant.Unsafe, lang.Text{
			EN: "the relay's policy keeps a SENT message %s, the chapters at least %s (chapter 003: reichen auch drei Tage): retention must not destroy the evidence early (chapter 001)",
			DE: "die Strategie des Relays bewahrt eine gesendete Nachricht %s auf, die Kapitel mindestens %s (Kapitel 003: reichen auch drei Tage): die Bereinigung darf die Nachweisführung nicht vorzeitig zerstören (Kapitel 001)",
		}, span(r.Retention), span(variant.MinRetention))
	}
	return out
}

// hammering finds a relay policy that sends too often into a down broker,
// per message or all together.
func hammering(r variant.RelayPolicy) []PolicyFinding {
	var out []PolicyFinding
	if n := r.TriesWithin(variant.TransientOutage); n > variant.MaxTriesPerOutage {
		tries := times(n)
		out = append(out, PolicyFinding{variant.Storm, lang.Text{
			EN: fmt.Sprintf("the relay's policy tries one message %s during a %s outage (backoff from %s, capped at %s), the lab allows at most %d: retry without backoff amplifies the fault (chapter 000: Retry läuft ohne Backoff und verstärkt Störungen)",
				tries.EN, span(variant.TransientOutage).EN, span(r.BackoffBase).EN, span(r.BackoffCap).EN, variant.MaxTriesPerOutage),
			DE: fmt.Sprintf("die Strategie des Relays versucht eine Nachricht während eines Ausfalls von %s %s (Backoff ab %s, höchstens %s), das Lab erlaubt höchstens %d: Retry ohne Backoff verstärkt Störungen (Kapitel 000)",
				span(variant.TransientOutage).DE, tries.DE, span(r.BackoffBase).DE, span(r.BackoffCap).DE, variant.MaxTriesPerOutage),
		}})
	}
	if n := DownBudget(variant.TransientOutage, r.Pause); n > variant.MaxDownTries {
		requests := times(n)
		out = append(out, PolicyFinding{variant.Storm, lang.Text{
			EN: fmt.Sprintf("the relay's policy sends requests %s into a %s outage, all messages together (pause from %s, capped at %s), the lab allows at most %d: a relay pauses as a whole after a failed send",
				requests.EN, span(variant.TransientOutage).EN, span(r.PauseBase).EN, span(r.PauseCap).EN, variant.MaxDownTries),
			DE: fmt.Sprintf("die Strategie des Relays schickt während eines Ausfalls von %s %s eine Anfrage, alle Nachrichten zusammen (Pause ab %s, höchstens %s), das Lab erlaubt höchstens %d: ein Relay pausiert nach einem gescheiterten Senden als Ganzes",
				span(variant.TransientOutage).DE, requests.DE, span(r.PauseBase).DE, span(r.PauseCap).DE, variant.MaxDownTries),
		}})
	}
	return out
}

// consumerFindings finds a consumer policy that parks a message at its
// first failure, where a run corrupts one in transit, or never parks one,
// or only after more tries than a relay may make (MaxTriesPerOutage),
// where a run sends one it cannot process.
func consumerFindings(c variant.ConsumerPolicy, f Faults) []PolicyFinding {
	corrupted, unprocessable := false, false
	for _, m := range f.Billing {
		corrupted = corrupted || m.Corrupted > 0
		unprocessable = unprocessable || m.Unprocessable
	}
	switch {
	case corrupted && c.MaxAttempts >= 1 && c.MaxAttempts < variant.MinConsumerAttempts:
		return []PolicyFinding{{variant.GaveUp, lang.Textf(lang.Text{
			EN: "the consumer's policy parks a message after %d attempt(s), the lab wants at least %d: a message corrupted once in transit is given up (chapter 000, section 8: Retry ist ein Schutz gegen transiente Fehler)",
			DE: "die Strategie des Consumers legt eine Nachricht nach %d Versuch(en) beiseite, das Labor verlangt mindestens %d: eine Nachricht, die unterwegs einmal beschädigt wurde, wird aufgegeben (Kapitel 000, Abschnitt 8: Retry ist ein Schutz gegen transiente Fehler)",
		}, c.MaxAttempts, variant.MinConsumerAttempts)}}
	case unprocessable && c.MaxAttempts > variant.MaxTriesPerOutage:
		return []PolicyFinding{{variant.Storm, lang.Textf(lang.Text{
			EN: "the consumer's policy tries a message it cannot process %d times before it parks it, the lab allows at most %d: retry without limit hammers billing's database and holds its order back (chapter 000, section 8)",
			DE: "die Strategie des Consumers versucht eine Nachricht, die er nicht verarbeiten kann, %d-mal, bevor er sie beiseitelegt, das Labor erlaubt höchstens %d: Retry ohne Grenze belastet die Datenbank von Billing und hält ihre Bestellung zurück (Kapitel 000, Abschnitt 8)",
		}, c.MaxAttempts, variant.MaxTriesPerOutage)}}
	case unprocessable && c.MaxAttempts < 1:
		return []PolicyFinding{{variant.Stuck, lang.Text{
			EN: "the consumer's policy never parks a message it cannot process (MaxAttempts 0): it is retried for ever and blocks its order (chapter 000, section 8)",
			DE: "die Strategie des Consumers legt eine Nachricht, die er nicht verarbeiten kann, nie beiseite (MaxAttempts 0): sie wird endlos wiederholt und blockiert ihre Bestellung (Kapitel 000, Abschnitt 8)",
		}}}
	}
	return nil
}

// times says how often, "without end" for a count that has none.
func times(n int) lang.Text {
	if n == math.MaxInt || n >= variant.MaxCounted {
		return lang.Text{EN: "without end", DE: "ohne Ende"}
	}
	return lang.Text{EN: fmt.Sprintf("%d times", n), DE: fmt.Sprintf("%d-mal", n)}
}

// span prints a duration without its zero units: "10m", "72h", "15m2s"
// in English, as lang.Duration writes it in German ("10 min", "72 h").
func span(d time.Duration) lang.Text {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return lang.Text{EN: s, DE: lang.Duration(d).In(lang.German)}
}
