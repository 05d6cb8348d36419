package check

import (
	"outboxlab/lang"
	"outboxlab/variant"
)

// Facts, not ports. A relay that keeps its dead letters outside the outbox
// table shows them through a port (variant.DeadLetterKeeper), billing
// what it holds unapplied through another (variant.Holder); the lab counts
// dead letters and held messages from facts the world owns (the committed
// tables, the broker's log, what was published and what was not) and
// cross-checks each port against them. A port that hides what the facts
// show is a finding of its own: an operator who looks there never sees
// the message.

// Hidden is a message the facts say a port should show and it does not.
type Hidden struct {
	MessageID   string
	AggregateID string
	Sequence    int
	// Facts say what the world's facts show of it ("tried 2 time(s) by
	// relay-1, refused, never stored by the broker, ...").
	Facts lang.Text
	// Unseen says what does not show it ("neither the outbox nor the
	// relay's dead-letter port (variant.DeadLetterKeeper) shows it").
	Unseen lang.Text
}

// hidden returns each hidden message as STUCK: neither sent nor a dead
// letter anybody can see.
func hidden(hs []Hidden) []Violation {
	var vs []Violation
	for _, h := range hs {
		vs = append(vs, Violation{variant.Stuck, h.AggregateID, h.Sequence, lang.Textf(lang.Text{
			EN: "message %s: %s, but %s: a port that hides a message leaves the operator blind to it",
			DE: "Nachricht %s: %s, aber %s: ein Port, der eine Nachricht verbirgt, lässt den Operator blind für sie"},
			h.MessageID, h.Facts, h.Unseen)})
	}
	return vs
}
