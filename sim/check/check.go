package check

import (
	"fmt"
	"math"
	"sort"
	"time"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/variant"
)

// Violation is one broken invariant, in plain words with numbers.
type Violation struct {
	Outcome     variant.Outcome
	AggregateID string
	Sequence    int
	// Detail says what broke, with numbers, in both languages.
	Detail lang.Text
}

// String is the violation in English.
func (v Violation) String() string { return v.In(lang.English) }

// Text is the violation in both languages.
func (v Violation) Text() lang.Text {
	return lang.Text{EN: v.In(lang.English), DE: v.In(lang.German)}
}

// In is the violation in l: the outcome word and the change stay as they
// are, the detail is in l.
func (v Violation) In(l lang.Lang) string {
	detail := v.Detail.In(l)
	switch {
	case v.AggregateID == "":
		return fmt.Sprintf("%s: %s", v.Outcome, detail)
	case v.Sequence == 0:
		return fmt.Sprintf("%s %s: %s", v.Outcome, v.AggregateID, detail)
	}
	return fmt.Sprintf("%s %s#%d: %s", v.Outcome, v.AggregateID, v.Sequence, detail)
}

// Worst returns the worst outcome among vs, OK for none.
func Worst(vs []Violation) variant.Outcome {
	w := variant.OK
	for _, v := range vs {
		w = max(w, v.Outcome)
	}
	return w
}

// World is what the durable systems hold at the end of a run.
type World struct {
	// Orders are the committed orders: every version 1..Version of each is a
	// committed business change that must have its effect downstream.
	Orders []domain.Order
	// Ledger is billing's committed effects in the order applied.
	Ledger []billing.Entry
	// Outbox holds the outbox messages that were not SENT after quiesce,
	// before any replay, oldest first; nil for a variant without an outbox.
	// A committed change whose message is stuck there is STUCK, not LOST:
	// the message still exists.
	Outbox []outbox.Message
	// Held are the messages billing holds without having applied them:
	// parked behind a gap, or dead letters. They explain a LOST change
	// (its message did arrive, and waits), but do not excuse it; one whose
	// change billing applied is STUCK there.
	Held []inbox.Parked
	// Quiesced is false if the run was still busy at the end of its horizon
	// (something retried forever).
	Quiesced bool
	// Busy describes what was still going on when the horizon ran out.
	Busy lang.Text

	// Changes are the committed business changes with their content (see
	// Changes); nil compares labels only.
	Changes []Change
	// Accounts are billing's accounts; each must equal its ledger.
	Accounts []billing.Account
	// Published is every message the broker stored, in order (the message
	// contract: one change, one message id), and StoredAt when the broker
	// stored each, index by index (nil: an aggregate's order at the
	// broker is not judged; see order.go).
	Published []broker.Envelope
	StoredAt  []time.Time
	// WorkEnded is when the run's work ended and the operator's began:
	// tries before it are the relays' own (see order.go).
	WorkEnded time.Time
	// PastDeadLetters says the variant declares that its relay publishes
	// an aggregate's later events past one it gave up
	// (variant.Variant.PublishesPastDeadLetters).
	PastDeadLetters bool
	// DeadLetters are the dead letters that existed after quiesce, before
	// the operator's replay, in the outbox and in billing.
	DeadLetters []variant.DeadLetter
	// Transient says every fault of the run heals by itself (no rejected or
	// poisoned message): then a dead letter is GAVE_UP.
	Transient bool
	// Publishes counts the publish attempts of each message, in the order
	// of the first attempt; PublishBudget is how many the retry policy
	// allows each (see Budget). More is STORM.
	Publishes     []Attempts
	PublishBudget int
	// BeforeReplay counts the publish attempts up to the operator's replay
	// of the dead letters, and BeforeReplayBudget is how many the retry
	// policy allows each until then (Budget with no replay): a message
	// given up one attempt late has used more by the time it is replayed.
	BeforeReplay       []Attempts
	BeforeReplayBudget int
	// WhileDown counts the relays' publish attempts the broker refused
	// because it was down, of all messages together (a service that
	// publishes itself makes one a command, whose client sees it fail);
	// WhileDownBudget is how many the
	// relays' own pause allows (see OutageBudget), 0 for no check. More is
	// STORM even when every message kept to its own backoff: a relay that
	// tries each of a thousand waiting messages on its own schedule sends
	// a thousand requests where one would tell it the broker is still down.
	WhileDown       int
	WhileDownBudget int
	// Tries are the publish attempts of the messages one by one, and
	// FailedMarks the commits that recorded a failed send in the outbox
	// or claimed a message: a message tried again sooner than Relay's
	// backoff after its failures is STORM (see Try), though its count of
	// tries is within the budget; a retry time written later than the
	// backoff, or a lease longer than Relay's, is LATE (see lazy).
	Tries       []Try
	FailedMarks []FailedMark
	// Unsafe lists the breaches of Safety; each is UNSAFE.
	Unsafe []lang.Text
	// Acknowledged are the order ids of the commands the service answered
	// with success, one per command: each is a change its client was told
	// is committed. An order must have at least as many committed versions;
	// fewer is LOST (the client was told of a change the database does not
	// hold). nil when the run does not record the answers.
	Acknowledged []string
	// Delays are the messages that waited for no reason, as the simulator
	// saw them happen (a claim held after a relay's step, a relay that
	// slept past a due message); each is LATE.
	Delays []Delay
	// Hidden are the messages a port does not show that the facts say it
	// should: a dead letter a relay keeps outside the outbox and does not
	// report, a message billing acknowledged unapplied and does not hold.
	// Each is STUCK; a hidden dead letter is among DeadLetters too (see
	// ports.go).
	Hidden []Hidden
	// Unreplayed are the dead letters the operator had a relay replay,
	// one at a time after fixing its cause, that stayed dead letters: a
	// replay that cannot put back what it is asked for leaves them STUCK.
	Unreplayed []variant.DeadLetter
	// Vanished are the dead letters the operator replayed that then were
	// neither dead letters again, nor delivered, nor waiting to be sent:
	// a replay that let go of a message before it was on its way (it
	// deleted the dead letter before the broker confirmed the send) lost
	// it.
	Vanished []variant.DeadLetter
	// ReplayResets are the outbox rows an operator's replay of dead
	// letters changed that were not dead letters: each is STORM (see
	// ReplayReset).
	ReplayResets []ReplayReset
	// Relay and Consumer are the policies the variant declares (the
	// course's where it declares none), and Exercise what the run put
	// them to: what is wrong with a policy itself is a violation where the
	// run puts it to the test (see PolicyFindings). Zero policies are not
	// judged.
	Relay    variant.RelayPolicy
	Consumer variant.ConsumerPolicy
	Exercise Exercise
	// BillingParked are the messages billing parked as dead letters for a
	// planned fault, with how many attempts it took and how many its
	// policy allows: more is STORM. Fewer is a policy too (a consumer may
	// put an unreadable message aside at once), unless the fault was
	// transient (Allowed 0): then parking it at all is GAVE_UP.
	BillingParked []ParkAttempts
	// Terms are the words of the system under test the sentences use:
	// OrderTerms when zero, ClaimTerms for chapter 004's story.
	Terms Terms
}

// ParkAttempts is a message billing put aside as a dead letter after Attempts
// attempts, where its policy allows Allowed: MaxAttempts for one it cannot
// process, one for a contract it does not know, which no retry can read,
// and none for one whose only fault was transient: its next attempt would
// have worked.
type ParkAttempts struct {
	MessageID   string
	AggregateID string
	Sequence    int
	Attempts    int
	Allowed     int
}

// Delay is a message that waited although a relay could have sent it.
type Delay struct {
	AggregateID string
	Sequence    int
	// Detail says who kept it waiting, from when, and until when.
	Detail lang.Text
}

// Attempts is how often one message was handed to the broker.
type Attempts struct {
	MessageID   string
	AggregateID string
	Sequence    int
	N           int
	// Budget, when positive, is how many attempts this message is allowed
	// in place of World.PublishBudget: for a run whose interruptions and
	// waits touch its messages differently (real processes, whose leases
	// run out while they wait).
	Budget int
}

// Budget returns how many publish attempts of one message a retry policy
// with maxAttempts allows in a run: maxAttempts, and as many again after
// each operator replay (a replay starts the count anew), and one more for
// every interruption (a crash, a stall, a lost lease) after which a relay
// may send a message again that it cannot know was sent. Not one more: a
// relay that gives up one attempt late is off its policy too.
func Budget(maxAttempts, replays, interruptions int) int {
	return maxAttempts*(1+replays) + interruptions
}

// DownBudget returns how many publish attempts a relay that pauses as a
// whole makes while the broker is down for the given time: one attempt,
// then pause(1), one attempt, pause(2), ... for as long as the outage
// lasts. pause(n) is the relay's pause after n failed attempts in a row
// (outbox.Config.Pause); a policy whose pause is not positive sets no
// bound (math.MaxInt).
func DownBudget(down time.Duration, pause func(n int) time.Duration) int {
	n := 0
	for at := time.Duration(0); at < down; {
		n++
		p := pause(n)
		if p <= 0 || n > variant.MaxCounted {
			return math.MaxInt
		}
		at += p
	}
	return n
}

type change struct {
	order string
	seq   int
}

// Check returns every violation in w, ordered by outcome (worst first), then
// aggregate and sequence.
func Check(w World) []Violation {
	f := factsOf(w)
	vs := applied(f)
	stuck := stuckMessages(w.Outbox)
	vs = append(vs, missing(w, f, stuck)...)
	vs = append(vs, acknowledged(f)...)
	vs = append(vs, content(w, f)...)
	cs := copiesOf(w.Published)
	if cs.renamed {
		vs = append(vs, contract(w.Published)...)
	}
	order, broke := brokerOrder(w, f, cs)
	vs = append(vs, order...)
	vs = append(vs, statusView(w.Published, w.Orders, broke)...)
	// A replay's reset comes first of the storms it makes: it is their
	// cause.
	for _, r := range w.ReplayResets {
		vs = append(vs, r.Violation())
	}
	vs = append(vs, liveness(w)...)
	for _, v := range spacing(w.Tries, w.FailedMarks, w.Relay) {
		if !resetByReplay(w.ReplayResets, v) {
			vs = append(vs, v)
		}
	}
	vs = append(vs, lazy(w.FailedMarks, w.Relay)...)
	for _, u := range w.Unsafe {
		vs = append(vs, Violation{Outcome: variant.Unsafe, Detail: u})
	}
	if !w.Quiesced {
		vs = append(vs, Violation{Outcome: variant.Stuck, Detail: lang.Textf(lang.Text{
			EN: "still busy at the end of the horizon: %s", DE: "am Ende des Horizonts noch beschäftigt: %s"}, w.Busy)})
	}
	vs = append(vs, stuck...)
	vs = append(vs, hidden(w.Hidden)...)
	vs = append(vs, policies(w)...)
	Sort(vs)
	return vs
}

// Sort orders violations as Check returns them: worst outcome first, then
// by aggregate, sequence and detail. A caller that adds findings of its
// own to Check's sorts the whole list with it.
func Sort(vs []Violation) {
	sort.Slice(vs, func(i, j int) bool {
		a, b := vs[i], vs[j]
		if a.Outcome != b.Outcome {
			return a.Outcome > b.Outcome
		}
		if a.AggregateID != b.AggregateID {
			return a.AggregateID < b.AggregateID
		}
		if a.Sequence != b.Sequence {
			return a.Sequence < b.Sequence
		}
		return a.Detail.EN < b.Detail.EN
	})
}

// acknowledged finds orders with fewer committed versions than commands
// the service answered with success (LOST).
func acknowledged(f *facts) []Violation {
	var vs []Violation
	for id, of := range f.orders {
		if of.told > 0 && of.version < of.told {
			vs = append(vs, Violation{variant.Lost, id, 0, lang.Textf(lang.Text{
				EN: "the service answered %d command(s) with success, but %d change(s) are committed",
				DE: "der Dienst hat %d Befehl(e) mit Erfolg beantwortet, aber %d Änderung(en) sind committet"}, of.told, of.version)})
		}
	}
	return vs
}

// stuckBefore returns an earlier change of c's order that is stuck in the
// outbox, if there is one.
func stuckBefore(stuck map[change]bool, c change) (int, bool) {
	for seq := 1; seq < c.seq; seq++ {
		if stuck[change{c.order, seq}] {
			return seq, true
		}
	}
	return 0, false
}

// stuckMessages finds outbox messages that are neither SENT nor DEAD_LETTER
// after quiesce, except those that wait behind a visible dead letter of
// their aggregate (the relay holds them back to keep the aggregate's order).
func stuckMessages(msgs []outbox.Message) []Violation {
	var vs []Violation
	blocked := map[string]bool{}
	for _, m := range msgs { // oldest first
		agg := m.Event.AggregateID
		switch {
		case m.Status == outbox.DeadLetter:
			blocked[agg] = true
		case m.Status == outbox.Sent || blocked[agg]:
		default:
			detail := lang.Textf(lang.Text{EN: "message %s is %s after quiesce", DE: "die Nachricht %s ist nach dem Abklingen %s"}, m.ID, m.Status)
			if m.Status == outbox.InFlight {
				detail = lang.Textf(lang.Text{
					EN: "message %s is %s after quiesce (claimed by %s, never released)",
					DE: "die Nachricht %s ist nach dem Abklingen %s (von %s geclaimt, nie freigegeben)"}, m.ID, m.Status, m.LeaseOwner)
			}
			vs = append(vs, Violation{variant.Stuck, agg, m.Event.Sequence, detail})
		}
	}
	return vs
}

// liveness finds dead letters under transient faults (GAVE_UP) and messages
// sent more often than the retry policy allows (STORM).
func liveness(w World) []Violation {
	var vs []Violation
	if w.Transient {
		for _, d := range w.DeadLetters {
			vs = append(vs, Violation{variant.GaveUp, d.AggregateID, d.Sequence,
				lang.Textf(lang.Text{
					EN: "message %s was dead-lettered in %s (%s), but every fault of the run was transient: the retries should have outlasted it",
					DE: "die Nachricht %s wurde in %s zum Dead Letter („%s“), aber jede Störung des Laufs war vorübergehend: die Wiederholungen hätten sie überdauern müssen"},
					d.MessageID, d.Where, d.Reason)})
		}
	}
	stormed := map[string]bool{}
	for _, a := range w.Publishes {
		budget := w.PublishBudget
		if a.Budget > 0 {
			budget = a.Budget
		}
		if budget > 0 && a.N > budget {
			stormed[a.MessageID] = true
			detail := lang.Textf(lang.Text{
				EN: "message %s was published %s times, the retry policy allows %d: retries without backoff or limit hammer the broker",
				DE: "die Nachricht %s wurde %s-mal veröffentlicht, die Wiederholungsstrategie erlaubt %d: Retries ohne Backoff oder Grenze hämmern auf den Broker ein"},
				a.MessageID, lang.Count(int64(a.N)), budget)
			if late, lease := sentPastLease(a.MessageID, w.Tries, w.FailedMarks); late > 0 && a.N-late <= budget {
				// Not one of its sends failed for the retry policy to
				// space: each went out under a claim that had run out.
				detail = lang.Textf(lang.Text{
					EN: "message %s was published %s times, the retry policy allows %d: %d of them were sent after the claim they were sent under had run out (claims that ran out within %s of their commit): a lease shorter than the relay's sends runs out before it records them, and the message is claimed and sent again, by this relay or another",
					DE: "die Nachricht %s wurde %s-mal veröffentlicht, die Wiederholungsstrategie erlaubt %d: %d davon wurden gesendet, nachdem der Claim, unter dem sie gesendet wurden, abgelaufen war (Claims, die höchstens %s nach ihrem Commit abliefen): eine Lease, kürzer als die Sendungen des Relays, läuft ab, bevor es sie vermerkt, und die Nachricht wird erneut geclaimt und gesendet, von diesem Relay oder einem anderen"},
					a.MessageID, lang.Count(int64(a.N)), budget, late, lang.Duration(lease.Round(time.Millisecond)))
			}
			vs = append(vs, Violation{variant.Storm, a.AggregateID, a.Sequence, detail})
		}
	}
	if w.WhileDownBudget > 0 && w.WhileDown > w.WhileDownBudget {
		vs = append(vs, Violation{Outcome: variant.Storm, Detail: lang.Textf(lang.Text{
			EN: "the broker refused %s sends while it was down, a relay that pauses after a failed send allows %d: trying every waiting message on its own schedule hammers the broker",
			DE: "der Broker hat während seines Ausfalls %s Sendeversuche abgelehnt, ein Relay, das nach einem gescheiterten Senden pausiert, erlaubt %d: jede wartende Nachricht nach ihrem eigenen Zeitplan zu versuchen, hämmert auf den Broker ein"},
			lang.Count(int64(w.WhileDown)), w.WhileDownBudget)})
	}
	if w.BeforeReplayBudget > 0 {
		for _, a := range w.BeforeReplay {
			if a.N > w.BeforeReplayBudget && !stormed[a.MessageID] {
				vs = append(vs, Violation{variant.Storm, a.AggregateID, a.Sequence,
					lang.Textf(lang.Text{
						EN: "message %s was published %s times before the operator's replay, the retry policy allows %d until a message is given up",
						DE: "die Nachricht %s wurde vor dem erneuten Einspielen durch den Operator %s-mal veröffentlicht, die Wiederholungsstrategie erlaubt %d, bis eine Nachricht aufgegeben wird"},
						a.MessageID, lang.Count(int64(a.N)), w.BeforeReplayBudget)})
			}
		}
	}
	return vs
}

// sentPastLease counts the tries of message id that went out after the
// claim they were sent under had run out: the message's last claim
// committed before the try was another process's (its own had run out,
// and another relay took the message over), or the trying process's own
// with its lease over before the try. It returns them with the longest
// such claim's lease, measured from the commit that made it.
func sentPastLease(id string, tries []Try, marks []FailedMark) (n int, lease time.Duration) {
	for _, t := range tries {
		if t.MessageID != id {
			continue
		}
		var last *FailedMark
		for i := range marks {
			m := &marks[i]
			if m.Claim && m.MessageID == id && !m.At.After(t.At) {
				last = m
			}
		}
		if last == nil || last.By == t.By && !last.LeaseUntil.Before(t.At) {
			continue
		}
		lease = max(lease, last.LeaseUntil.Sub(last.At))
		n++
	}
	return n, lease
}

// ReplayReset is an outbox row an operator's replay of dead letters
// changed although it was no dead letter: Before and After the replay,
// At its time. A replay must put back the dead letters it is asked for
// and nothing else: a FAILED message's count of failed sends and its next
// attempt are its retry history, and a replay that resets them has the
// relay send it again at once and more often than its policy allows.
type ReplayReset struct {
	At            time.Time
	Before, After outbox.Message
}

// Violation is r as STORM, naming the row and what the replay wrote.
func (r ReplayReset) Violation() Violation {
	was := lang.Textf(lang.Text{EN: "%s", DE: "%s"}, r.Before.Status)
	if r.Before.Status == outbox.Failed {
		was = lang.Textf(lang.Text{EN: "%s, not a dead letter (%d failed sends, its next attempt at %s)", DE: "%s, kein Dead Letter (%d gescheiterte Sendungen, ihr nächster Versuch um %s)"},
			r.Before.Status, r.Before.Attempts, clock(r.Before.NextAttemptAt))
	}
	due := lang.Text{EN: "due at once", DE: "sofort fällig"}
	if r.After.NextAttemptAt.After(r.At) {
		due = lang.Textf(lang.Text{EN: "due at %s", DE: "fällig um %s"}, clock(r.After.NextAttemptAt))
	}
	return Violation{variant.Storm, r.Before.Event.AggregateID, r.Before.Event.Sequence, lang.Textf(lang.Text{
		EN: "the operator's replay of the dead letters reset message %s, which was %s: it wrote it %s with %d attempts, %s, and the relay tries it again beyond its retry policy",
		DE: "das Wiedereinspielen der Dead Letters durch den Operator setzte die Nachricht %s zurück, die %s war: es schrieb sie %s mit %d Versuchen, %s, und das Relay versucht sie erneut, über seine Wiederholungsstrategie hinaus"},
		r.Before.ID, was, r.After.Status, r.After.Attempts, due)}
}

// resetByReplay reports whether v is about a message whose retry history
// an operator's replay reset: its backoff broke because the replay erased
// it, and the reset's violation names that cause.
func resetByReplay(resets []ReplayReset, v Violation) bool {
	for _, r := range resets {
		if r.Before.Event.AggregateID == v.AggregateID && r.Before.Event.Sequence == v.Sequence {
			return true
		}
	}
	return false
}
