package variant

import (
	"fmt"
	"strings"

	"outboxlab/lang"
)

// Outcome is the verdict of one run. Its String is the public word used in
// the matrix, in JSON and in variant declarations.
type Outcome int

// Outcomes, mildest first; a larger value is worse.
const (
	OK Outcome = iota
	// Late: a message waited although a relay could have sent it: a relay
	// kept it claimed after its step, or slept past the time it was due
	// longer than its own failures excuse (see World.Delays).
	Late
	// Storm: more publish attempts than the retry policy allows.
	Storm
	// GaveUp: a dead letter although every fault of the run was transient.
	GaveUp
	Stuck
	// Unsafe: a safety property broke during the run (see Safety), even if
	// the end state looks right.
	Unsafe
	// Mismatch: an effect exists once but differs from the committed change
	// (amount, kind), or a ledger or account does not add up. It ranks
	// below the outcomes that explain it (an effect applied out of order
	// credits the wrong amount).
	Mismatch
	OutOfOrder
	Duplicate
	Phantom
	Lost
	// NonDeterministic: the same run made twice, from the same seed, went
	// two ways. No run's checker says it (one run cannot tell): the
	// grader replays runs and compares their traces (sim.RunTwice). It
	// ranks above every other outcome: what a run that does not replay
	// shows, no replay can show again.
	NonDeterministic
)

var outcomeWords = [...]string{"OK", "LATE", "STORM", "GAVE_UP", "STUCK", "UNSAFE", "MISMATCH", "OUT_OF_ORDER", "DUPLICATE", "PHANTOM", "LOST", "NONDETERMINISTIC"}

// String returns the outcome's public word, e.g. "OUT_OF_ORDER", and
// "n/a" for NotApplicable.
func (o Outcome) String() string {
	if o == NotApplicable {
		return "n/a"
	}
	if o < 0 || int(o) >= len(outcomeWords) {
		return fmt.Sprintf("Outcome(%d)", int(o))
	}
	return outcomeWords[o]
}

// Outcomes lists every outcome, mildest first.
func Outcomes() []Outcome {
	return []Outcome{OK, Late, Storm, GaveUp, Stuck, Unsafe, Mismatch, OutOfOrder, Duplicate, Phantom, Lost, NonDeterministic}
}

// NotApplicable is the verdict of a matrix cell whose point the variant
// never reaches: no run was judged there. It is no run's outcome (Outcomes
// leaves it out, Worst never returns it) and sorts below OK.
const NotApplicable Outcome = -1

// Letter returns the outcome's one-character mark in the compact matrix:
// ✓ for OK, - for NotApplicable, a letter for every other outcome.
func (o Outcome) Letter() string {
	if t, ok := outcomeTexts[o]; ok {
		return t.letter
	}
	return "?"
}

// Meaning says in a few words, in both languages, what the outcome means:
// the legend of every matrix (text, Markdown, HTML) and the meaning of a
// violation in a report come from here.
func (o Outcome) Meaning() lang.Text {
	return outcomeTexts[o].meaning
}

// outcomeTexts are the letter and meaning of each outcome and of
// NotApplicable.
var outcomeTexts = map[Outcome]struct {
	letter  string
	meaning lang.Text
}{
	NotApplicable: {"-", lang.Text{EN: "the variant never reaches this point", DE: "die Variante erreicht diesen Punkt nie"}},
	OK:            {"✓", lang.Text{EN: "all invariants hold", DE: "alle Invarianten gelten"}},
	Lost: {"L", lang.Text{EN: "a committed (or acknowledged) change has no effect downstream",
		DE: "eine committete (oder bestätigte) Änderung hat nachgelagert keine Wirkung"}},
	Phantom: {"P", lang.Text{EN: "a downstream effect for a change never committed",
		DE: "eine nachgelagerte Wirkung für eine nie committete Änderung"}},
	Duplicate: {"D", lang.Text{EN: "a business effect applied more than once",
		DE: "eine fachliche Wirkung mehr als einmal angewendet"}},
	OutOfOrder: {"O", lang.Text{EN: "an older event applied after a newer one of the same order",
		DE: "ein älteres Ereignis nach einem neueren derselben Bestellung angewendet"}},
	Mismatch: {"M", lang.Text{EN: "an effect that differs from the committed change (amount, kind)",
		DE: "eine Wirkung, die von der committeten Änderung abweicht (Betrag, Art)"}},
	Unsafe: {"U", lang.Text{EN: "a safety breach during the run (two valid leases at once, a write after SENT)",
		DE: "ein Sicherheitsbruch im Lauf (zwei gültige Leases zugleich, ein Schreiben nach SENT)"}},
	Stuck: {"S", lang.Text{EN: "a message neither SENT nor DEAD_LETTER after quiesce",
		DE: "eine Nachricht nach dem Abklingen weder SENT noch DEAD_LETTER"}},
	GaveUp: {"G", lang.Text{EN: "a dead letter although every fault was transient",
		DE: "ein Dead Letter, obwohl jede Störung vorübergehend war"}},
	Storm: {"R", lang.Text{EN: "more publishes than the retry policy allows",
		DE: "mehr Sendeversuche, als die Wiederholungsstrategie erlaubt"}},
	Late: {"T", lang.Text{EN: "a message waited although a relay could have sent it",
		DE: "eine Nachricht wartete, obwohl ein Relay sie hätte senden können"}},
	NonDeterministic: {"N", lang.Text{EN: "the same seed gave two different runs",
		DE: "derselbe Seed ergab zwei verschiedene Läufe"}},
}

// MarshalText writes the outcome's public word, so that JSON carries
// "LOST", not a number.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText reads an outcome's public word (or "n/a"), as a story
// file's expect line or a JSON document writes it; an unknown word is an
// error naming the valid ones.
func (o *Outcome) UnmarshalText(word []byte) error {
	if string(word) == NotApplicable.String() {
		*o = NotApplicable
		return nil
	}
	for i, w := range outcomeWords {
		if w == string(word) {
			*o = Outcome(i)
			return nil
		}
	}
	return fmt.Errorf("unknown outcome %q (valid: %s)", word, strings.Join(outcomeWords[:], ", "))
}
