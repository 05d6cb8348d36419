package verdict

import (
	"fmt"
	"io"
	"time"

	"outboxlab/lang"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// Transcript is a replayed run as a learner reads it, below what the
// door says of the run first (labrun scenario's header and narration, a
// test's title): its timeline, how it ended against what was expected,
// what broke, the command that replays it, and where a second run of it
// parted. labrun scenario and a test's -lab.replay write it with Write,
// so they say one run in the same sentences, folded the same, in both
// languages.
type Transcript struct {
	Result   sim.Result
	Expected variant.Outcome
	// Replay is the command that replays the run, "" for none (a test
	// log names its flags elsewhere).
	Replay string
	// Divergence is where a second run from the same seed parted from
	// this one; nil when it did not.
	Divergence *sim.Divergence
}

// transcriptWidth is what a transcript's wrapped lines fit in.
const transcriptWidth = 78

// Write writes the transcript in l.
func (t Transcript) Write(w io.Writer, l lang.Lang) {
	res := t.Result
	WriteTimeline(w, l, res.Trace)
	fmt.Fprintf(w, "\n%s\n", lang.Textf(scenarios.OutcomeLine, BrokeWith(res), t.Expected).In(l))
	for _, v := range res.Violations {
		fmt.Fprintf(w, "  %s\n", v.In(l))
	}
	if res.CommitFailures > res.Situations[sim.FailureReported] {
		fmt.Fprintf(w, "  %s\n", lang.Textf(lang.Text{
			EN: "a failed commit never came back as an error: the process went on as if it had committed (never reached %s)",
			DE: "ein gescheiterter Commit kam nie als Fehler zurück: der Prozess machte weiter, als wäre gespeichert (nie erreicht: %s)",
		}, sim.FailureReported).In(l))
	}
	for _, u := range res.Unhandled {
		fmt.Fprintf(w, "  %s: %s\n", u, CauseUnhandled.Text().In(l))
	}
	for _, m := range MisstepLines(l, sim.Missteps{Swallowed: res.Swallowed, Panics: res.Panics}) {
		fmt.Fprintf(w, "  %s\n", m)
	}
	if t.Replay != "" {
		fmt.Fprint(w, lang.Textf(lang.Text{EN: "Replay: %s\n", DE: "Wiederholen: %s\n"}, t.Replay).In(l))
	}
	if d := t.Divergence; d != nil {
		fmt.Fprintf(w, "\n%s", d.Report(l, transcriptWidth))
	}
}

// BrokeWith says how a run broke: its outcome, or, when that is OK, the
// misstep that broke it (an error the process returned, a crash it went
// on from, a panic, a failed commit it went on from). A transcript says
// it in its Outcome line, so that the first thing a learner reads of a
// misstep's run is what failed.
func BrokeWith(res sim.Result) lang.Text {
	switch {
	case res.Outcome != variant.OK:
		return lang.Plain(res.Outcome.String())
	case len(res.Unhandled) > 0:
		return lang.Text{EN: "OK, but a process returned an error it should have handled itself", DE: "OK, aber ein Prozess gab einen Fehler zurück, den er selbst hätte behandeln müssen"}
	case len(res.Swallowed) > 0:
		return lang.Text{EN: "OK, but a process went on after its crash", DE: "OK, aber ein Prozess machte nach seinem Absturz weiter"}
	case len(res.Panics) > 0:
		return lang.Text{EN: "OK, but a process panicked", DE: "OK, aber ein Prozess löste eine Panic aus"}
	case res.CommitFailures > res.Situations[sim.FailureReported]:
		return lang.Text{EN: "OK, but a failed commit never came back as an error", DE: "OK, aber ein gescheiterter Commit kam nie als Fehler zurück"}
	}
	return lang.Plain(res.Outcome.String())
}

// misstepTexts say what each kind of misstep is, after its entry.
var misstepTexts = []lang.Text{
	{EN: "%s: an error the process should have handled itself (Relay.Run stops at it)", DE: "%s: ein Fehler, den der Prozess selbst hätte behandeln müssen (Relay.Run hört dort auf)"},
	{EN: "%s (a crashed process must return effect.ErrCrashed at once)", DE: "%s (ein abgestürzter Prozess muss effect.ErrCrashed sofort zurückgeben)"},
	{EN: "%s (the process died of it and restarted)", DE: "%s (der Prozess starb daran und startete neu)"},
}

// MisstepLines lists missteps, each in a line in l that says what it is.
func MisstepLines(l lang.Lang, m sim.Missteps) []string {
	var out []string
	for i, list := range [][]string{m.Unhandled, m.Swallowed, m.Panics} {
		for _, s := range list {
			out = append(out, fmt.Sprintf(misstepTexts[i].In(l), s))
		}
	}
	return out
}

// WriteTimeline writes the trace in l, one event a line, with a run of
// the same few events repeated over and over (a message retried for
// hours) shown twice, then counted, then once more: the whole trace is
// in labrun's --format json.
func WriteTimeline(w io.Writer, l lang.Lang, trace []sim.Event) {
	shape := func(e sim.Event) string { return e.Process + "|" + string(e.Kind) + "|" + e.Action + "|" + e.Result.EN }
	for i := 0; i < len(trace); {
		period, reps := repetition(trace[i:], shape)
		if reps <= 3 {
			fmt.Fprintln(w, trace[i].In(l))
			i++
			continue
		}
		for _, e := range trace[i : i+2*period] {
			fmt.Fprintln(w, e.In(l))
		}
		last := i + (reps-1)*period
		fmt.Fprintf(w, "%s\n", elided(period, reps-3, trace[last-1].At).In(l))
		for _, e := range trace[last : last+period] {
			fmt.Fprintln(w, e.In(l))
		}
		i += reps * period
	}
}

// elided says what WriteTimeline left out: times repetitions of the
// same period events, the last of them at the time last.
func elided(period, times int, last time.Duration) lang.Text {
	what := lang.Text{EN: "the same event", DE: "dasselbe Ereignis"}
	if period > 1 {
		what = lang.Textf(lang.Text{EN: "the same %d events", DE: "dieselben %d Ereignisse"}, period)
	}
	how := lang.Text{EN: "once more", DE: "noch einmal"}
	if times > 1 {
		how = lang.Textf(lang.Text{EN: "%d more times", DE: "noch %d-mal"}, times)
	}
	return lang.Textf(lang.Text{EN: "... %s %s, the last at %s ...", DE: "... %s %s, zuletzt um %s ..."}, what, how, sim.TimeText(last))
}

// repetition finds the block of one to four events at the start of trace
// that repeats most often back to back, by shape, and returns its length
// and how many times it occurs in a row.
func repetition(trace []sim.Event, shape func(sim.Event) string) (period, reps int) {
	period, reps = 1, 1
	for p := 1; p <= 4 && 2*p <= len(trace); p++ {
		n := 1
		for (n+1)*p <= len(trace) && sameShape(trace[:p], trace[n*p:(n+1)*p], shape) {
			n++
		}
		if n*p > reps*period && n > 1 {
			period, reps = p, n
		}
	}
	return period, reps
}

func sameShape(a, b []sim.Event, shape func(sim.Event) string) bool {
	for i := range a {
		if shape(a[i]) != shape(b[i]) {
			return false
		}
	}
	return true
}
