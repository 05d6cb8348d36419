package verify

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"outboxlab/lang"
	"outboxlab/sim/check"
	"outboxlab/variant"
)

var (
	txtRound      = lang.Text{EN: "round %s: %s", DE: "Runde %s: %s"}
	txtWorld      = lang.Text{EN: "  %d instance(s), %d committed event(s), %s", DE: "  %d Instanz(en), %d committete Ereignis(se), %s"}
	txtNotReached = lang.Text{
		EN: "  NOT REACHED: %s: the relay made fewer produce requests; the round tested nothing of it",
		DE: "  NICHT ERREICHT: %s: der Relay hat weniger Produce-Anfragen gestellt; die Runde hat davon nichts geprüft"}
	txtNotReachedConsumer = lang.Text{
		EN: "  NOT REACHED: %s: its moment never came (fewer offset commits, effects or events than it aims at); the round tested nothing of it",
		DE: "  NICHT ERREICHT: %s: sein Moment kam nie (weniger Offset-Commits, Effekte oder Ereignisse, als er anvisiert); die Runde hat davon nichts geprüft"}
	txtNotMade = lang.Text{
		EN: "  NOT MADE: %s; the harness could not make its fault, and the round tested nothing of it",
		DE: "  NICHT HERBEIGEFÜHRT: %s; der Harness konnte seine Störung nicht herbeiführen, und die Runde hat davon nichts geprüft"}
	txtTimeline = lang.Text{EN: "    what the harness did and saw:", DE: "    was der Harness getan und gesehen hat:"}
	txtMore     = lang.Text{EN: "  … and %d more violation(s) (--timeline prints the whole timeline)", DE: "  … und %d weitere Verletzung(en) (--timeline zeigt die ganze Zeitleiste)"}
	txtReplay   = lang.Text{EN: "  replay: %s", DE: "  nachspielen: %s"}
	txtRepeats  = lang.Text{EN: "  repeated: failed %d of %d (%s)", DE: "  wiederholt: %d von %d nicht bestanden (%s)"}
	txtLate     = lang.Text{EN: "the round's own timing: %s", DE: "das eigene Timing der Runde: %s"}
	txtRace     = lang.Text{
		EN: "  (what else the round's timing did, a replay cannot stage: if it passes, the failure was a race; --repeat N plays it N times and says how often it failed)",
		DE: "  (was das Timing der Runde sonst tat, kann ein Nachspielen nicht inszenieren: besteht es, war der Fehler ein Wettlauf; --repeat N spielt sie N-mal und sagt, wie oft sie scheiterte)"}
	txtSummary = lang.Text{EN: "%d round(s), %d passed, %d failed, in %s", DE: "%d Runde(n), %d bestanden, %d nicht bestanden, in %s"}
	txtPass    = lang.Text{
		EN: "The relay keeps the contract in every round.",
		DE: "Der Relay hält den Vertrag in jeder Runde ein."}
	txtPassConsumer = lang.Text{
		EN: "The consumer keeps the contract in every round.",
		DE: "Der Consumer hält den Vertrag in jeder Runde ein."}
)

// WriteRound prints a round's verdict: its outcome, each violation, the
// timeline around the first ones, how often its repetitions failed, and
// for a failure the command that replays it. With all, it prints the
// whole timeline.
func WriteRound(w io.Writer, res Result, l lang.Lang, replay string, all bool) {
	fmt.Fprintln(w, lang.Textf(txtRound, res.Round.Name, res.Round.Text.In(l)).In(l))
	fmt.Fprintf(w, "%s: %s\n", lang.Textf(txtWorld, res.Round.Instances, len(res.Committed), res.Wall.Round(time.Millisecond)).In(l), res.Verdict())
	for _, b := range res.Breaches {
		fmt.Fprintf(w, "  %s\n", b)
		for _, line := range b.Lines {
			fmt.Fprintf(w, "      %s\n", line)
		}
	}
	for _, f := range res.NotReached {
		if res.Round.Consumer {
			fmt.Fprintln(w, lang.Textf(txtNotReachedConsumer, f.String()).In(l))
			continue
		}
		fmt.Fprintln(w, lang.Textf(txtNotReached, f.String()).In(l))
	}
	for _, n := range res.NotMade {
		fmt.Fprintln(w, lang.Textf(txtNotMade, n.String()).In(l))
	}
	for i, v := range res.Violations {
		if i == 3 {
			fmt.Fprintln(w, lang.Textf(txtMore, len(res.Violations)-3).In(l))
			break
		}
		fmt.Fprintf(w, "  %s\n", v)
		if all {
			continue
		}
		fmt.Fprintln(w, txtTimeline.In(l))
		for _, e := range Mentioning(res.Timeline, 30, eventIDs(v, res.Committed)...) {
			fmt.Fprintf(w, "      %s\n", e)
		}
	}
	if all {
		for _, e := range res.Timeline {
			fmt.Fprintf(w, "    %s\n", e)
		}
	}
	if len(res.Repeats) > 1 {
		failed := 0
		var verdicts []string
		for _, r := range res.Repeats {
			if !r.OK() {
				failed++
			}
			verdicts = append(verdicts, r.Verdict())
		}
		fmt.Fprintln(w, lang.Textf(txtRepeats, failed, len(res.Repeats), strings.Join(verdicts, ", ")).In(l))
	}
	if !res.OK() {
		if res.Late != nil {
			fmt.Fprintf(w, "  %s\n", lang.Textf(txtLate, res.Late.String()).In(l))
		}
		fmt.Fprintln(w, lang.Textf(txtReplay, replay).In(l))
		fmt.Fprintln(w, txtRace.In(l))
	}
	fmt.Fprintln(w)
}

// Verdict is the round's verdict in a word or a few: the checker's worst
// outcome, the breaches' words, NOT REACHED for a round whose fault's
// moment never came, NOT MADE for one whose fault the harness could not
// make, OK.
func (r Result) Verdict() string {
	var words []string
	if r.Outcome != variant.OK {
		words = append(words, r.Outcome.String())
	}
	for _, b := range r.Breaches {
		if !slices.Contains(words, b.Verdict) {
			words = append(words, b.Verdict)
		}
	}
	if len(words) == 0 && len(r.NotReached) > 0 {
		words = append(words, "NOT REACHED")
	}
	if len(words) == 0 && len(r.NotMade) > 0 {
		words = append(words, "NOT MADE")
	}
	if len(words) == 0 {
		return variant.OK.String()
	}
	return strings.Join(words, ", ")
}

// WriteSummary prints the line that closes a run.
func WriteSummary(w io.Writer, results []Result, l lang.Lang, wall time.Duration) {
	passed := 0
	for _, r := range results {
		if r.OK() {
			passed++
		}
	}
	fmt.Fprintln(w, lang.Textf(txtSummary, len(results), passed, len(results)-passed, wall.Round(100*time.Millisecond)).In(l))
	switch {
	case passed < len(results):
	case len(results) > 0 && results[0].Round.Consumer:
		fmt.Fprintln(w, txtPassConsumer.In(l))
	default:
		fmt.Fprintln(w, txtPass.In(l))
	}
}

// eventIDs returns the committed events a violation is about: those its
// detail names, and those of its aggregate (and sequence); and the relay
// processes it names ("relay-1/2"), whose own lines belong to it.
func eventIDs(v check.Violation, committed []Committed) []string {
	named := map[string]bool{}
	for _, t := range tokens(v.Detail.EN) {
		named[t] = true
	}
	out := procLabel.FindAllString(v.Detail.EN, -1)
	for _, c := range committed {
		agg := v.AggregateID != "" && c.Record.AggregateID == v.AggregateID && (v.Sequence == 0 || c.Record.Sequence == v.Sequence)
		if agg || named[c.EventID] {
			out = append(out, c.EventID)
		}
	}
	return out
}

// procLabel matches a relay process's label in a verdict's detail.
var procLabel = regexp.MustCompile(`\brelay-[0-9]+/[0-9]+\b`)
