package metrics

import (
	"time"

	"outboxlab/lang"
	"outboxlab/outbox"
)

// Rule is one alert an operator sets on the dashboard.
type Rule struct {
	// Name is a short id ("oldest-unsent").
	Name string
	// Text says what fired and what to look at.
	Text lang.Text
	// Fires reports whether the rule fires for a sample.
	Fires func(Sample) bool
}

// OldestUnsent fires when the oldest unsent message is older than limit:
// "Eine kleine Warteschlange kann bereits geschäftskritisch sein, wenn
// ihr ältester Eintrag eine Frist überschreitet" (chapter 001). A stalled
// relay raises it however few messages wait (chapter 004, "Stillstehender
// Versandprozess"); so does a message blocked in its backoff or as a dead
// letter, while the throughput looks healthy.
func OldestUnsent(limit time.Duration) Rule {
	return Rule{
		Name: "oldest-unsent",
		Text: lang.Textf(lang.Text{
			EN: "the oldest unsent message is older than %s: is the relay running, is the broker up, is a message stuck?",
			DE: "die älteste ungesendete Nachricht ist älter als %s: läuft der Versandprozess, ist der Broker erreichbar, hängt eine Nachricht?",
		}, lang.Duration(limit)),
		Fires: func(s Sample) bool { return s.Unsent() > 0 && s.Outbox.OldestUnsentAge > limit },
	}
}

// DeadLetters fires while the outbox holds a dead letter: "Dead-Letter-Fälle
// werden nicht überwacht" is a typical mistake (chapter 000 §11).
func DeadLetters() Rule {
	return Rule{
		Name: "dead-letter",
		Text: lang.Text{
			EN: "the outbox holds a dead letter: fix its cause and replay it",
			DE: "die Outbox hält einen Dead Letter: Ursache beheben und ihn erneut einspielen",
		},
		Fires: func(s Sample) bool { return s.Outbox.ByStatus[outbox.DeadLetter] > 0 },
	}
}
