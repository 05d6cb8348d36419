package cli

import (
	"fmt"
	"io"
	"time"

	"outboxlab/lang"
	"outboxlab/sim"
)

// writeTimeline prints the trace, one event each, with a run of the same
// few events repeated over and over (a message retried for hours) shown
// twice, then counted, then once more: the whole trace is in --format json.
func writeTimeline(w io.Writer, trace []sim.Event) {
	shape := func(e sim.Event) string { return e.Process + "|" + string(e.Kind) + "|" + e.Action + "|" + e.Result.EN }
	l := langOf(w)
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
		fmt.Fprintf(w, "%s\n", in(w, elided(period, reps-3, trace[last-1].At)))
		for _, e := range trace[last : last+period] {
			fmt.Fprintln(w, e.In(l))
		}
		i += reps * period
	}
}

// elided says what writeTimeline left out: times repetitions of the
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
