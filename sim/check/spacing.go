package check

import (
	"slices"
	"time"

	"outboxlab/lang"
	"outboxlab/variant"
)

// Try is one publish attempt of a message, as the broker saw it.
type Try struct {
	MessageID   string
	AggregateID string
	Sequence    int
	At          time.Time
	// By is the process that tried.
	By string
	// Failed says the publisher got an error back (an outage, a
	// rejection, a timeout).
	Failed bool
}

// FailedMark is a commit to a message's outbox row that matters to its
// backoff: one that recorded a failed send (status FAILED, one attempt
// more: the relay knew of the failure and owes the message its backoff),
// or, with Claim, one that claimed it (IN_FLIGHT) for the process By.
type FailedMark struct {
	MessageID string
	At        time.Time
	By        string
	Claim     bool
	// AggregateID and Sequence are the message's event; Attempts and
	// RetryAt what a failure record wrote (its count of failed sends,
	// when it may be tried again), LeaseUntil what a claim wrote: what
	// the relay wrote is judged against what its policy declares (see
	// lazy).
	AggregateID string
	Sequence    int
	Attempts    int
	RetryAt     time.Time
	LeaseUntil  time.Time
}

// spacing finds messages tried again sooner than the declared policy's
// backoff (STORM): after its n-th failed send in a row, each recorded as
// FAILED, a message waits at least p.Backoff(n) before its next try. A
// round of tries starts anew after a failure the outbox never recorded
// as FAILED (a crash before the mark, a lease that ran out, a dead letter
// the operator replayed) and after a send that succeeded. The publish
// budget counts tries; this judges their spacing: a backoff computed
// wrongly (an overflow that makes it negative) retries at the relay's
// pause, within the budget of tries but not of time.
func spacing(tries []Try, marks []FailedMark, p variant.RelayPolicy) []Violation {
	if p.BackoffBase <= 0 || len(tries) == 0 {
		return nil
	}
	// Only a message with a failed try can owe a backoff (backoffBroken
	// finds nothing in the others): most runs have none, and most
	// messages of the others none either.
	var failed map[string]bool
	for i := range tries {
		if tries[i].Failed {
			if failed == nil {
				failed = map[string]bool{}
			}
			failed[tries[i].MessageID] = true
		}
	}
	if failed == nil {
		return nil
	}
	byMessage := map[string][]step{}
	var order []string
	for i := range tries {
		t := &tries[i]
		if !failed[t.MessageID] {
			continue
		}
		if _, ok := byMessage[t.MessageID]; !ok {
			order = append(order, t.MessageID)
		}
		byMessage[t.MessageID] = append(byMessage[t.MessageID], step{at: t.At, try: t})
	}
	for i := range marks {
		m := &marks[i]
		if s, ok := byMessage[m.MessageID]; ok {
			byMessage[m.MessageID] = append(s, step{at: m.At, mark: m})
		}
	}
	var vs []Violation
	for _, id := range order {
		steps := byMessage[id]
		slices.SortStableFunc(steps, func(a, b step) int { return a.at.Compare(b.at) })
		if v, ok := backoffBroken(steps, p); ok {
			vs = append(vs, v)
		}
	}
	return vs
}

// step is a message's try, or (try nil) a commit to its row: pointers,
// so that sorting moves a few words, not a FailedMark.
type step struct {
	at   time.Time
	try  *Try
	mark *FailedMark
}

// backoffBroken walks one message's tries and failure records in time
// order and returns the first try made sooner than the backoff it owed.
func backoffBroken(steps []step, p variant.RelayPolicy) (Violation, bool) {
	failed, marked := 0, false
	var last time.Time
	var claimed map[string]bool // since the last failure was recorded; made at the first claim
	for _, s := range steps {
		if s.try == nil {
			switch {
			case s.mark.Claim:
				if claimed == nil {
					claimed = map[string]bool{}
				}
				claimed[s.mark.By] = true
			case failed > 0:
				marked = true
				clear(claimed)
			}
			continue
		}
		t := s.try
		if failed > 0 && (!marked || !claimed[t.By]) {
			failed = 0 // the failure was never recorded, or the try is from an older claim: a new round
		}
		if failed > 0 {
			if waited, owed := t.At.Sub(last), p.Backoff(failed); waited < owed {
				return Violation{variant.Storm, t.AggregateID, t.Sequence, lang.Textf(lang.Text{
					EN: "message %s was sent again %s after its failed send %d in a row, the retry policy's backoff is %s: the backoff was not kept",
					DE: "die Nachricht %s wurde %s nach ihrem %d. gescheiterten Senden in Folge erneut gesendet, der Backoff der Wiederholungsstrategie beträgt %s: der Backoff wurde nicht eingehalten"},
					t.MessageID, lang.Duration(waited.Round(time.Millisecond)), failed, lang.Duration(owed))}, true
			}
		}
		if t.Failed {
			failed, last, marked = failed+1, t.At, false
		} else {
			failed = 0
		}
	}
	return Violation{}, false
}
