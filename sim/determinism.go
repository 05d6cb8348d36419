package sim

import (
	"fmt"
	"strings"
	"time"

	"outboxlab/lang"
	"outboxlab/variant"
)

// Determinism is checked, not assumed. The simulator is deterministic; a
// variant can make a run that is not: its code reads the wall clock,
// ranges over a map, starts a goroutine, draws from the global math/rand
// or keeps state in a package variable from one run to the next. Such a
// run passes or fails by chance, and the replay a failure prints may not
// show it. RunTwice makes a run twice and Diverge compares two runs event
// by event; the grader (lab/verdict) and labrun's scenario and explore
// commands say NONDETERMINISTIC where they part.

// Divergence is where two runs of one configuration part: the first event
// that differs, and the events both had alike before it.
type Divergence struct {
	// Index is the number of the first event that differs, from 0: an
	// event of one run the other does not have, or that says another
	// thing. Index past both traces means the traces are alike and the
	// verdicts are not (First and Second are then the verdicts).
	Index int
	// At and Process are the time and the process of the first run's
	// event at Index (the second run's, where the first had ended).
	At      time.Duration
	Process string
	// Before are the last events both runs had alike, at most
	// divergenceContext of them.
	Before []Event
	// First and Second are each run's event at Index; a zero Event says
	// that run had ended.
	First, Second Event
}

// divergenceContext is how many events alike a Divergence shows before
// the two runs part.
const divergenceContext = 2

// RunTwice makes the run cfg twice, traced, and compares the two runs
// (Again). It returns the first run's result and where the two part, nil
// when they are the same run. An error of the first run is returned as
// it is.
func RunTwice(cfg Config) (Result, *Divergence, error) {
	cfg.Trace = true
	first, err := Run(cfg)
	if err != nil {
		return first, nil, err
	}
	return first, Again(cfg, first), nil
}

// Again makes the run cfg once more, traced, and returns where it parts
// from first (a traced run of cfg made before), nil where it does not. A
// run that cannot be made where first could parts at first's end.
func Again(cfg Config, first Result) *Divergence {
	cfg.Trace = true
	second, err := Run(cfg)
	if err != nil {
		return &Divergence{Index: len(first.Trace), At: first.Duration, Process: "sim",
			Before: first.Trace[max(0, len(first.Trace)-divergenceContext):],
			First:  Event{At: first.Duration, Process: "sim", Kind: EventPhase, Action: "end of the run", Result: lang.Plain("ok")},
			Second: Event{Process: "sim", Kind: EventError, Action: "run", Result: errorResult(err)}}
	}
	return Diverge(first, second)
}

// Diverge compares two traced runs event by event and returns where they
// part, or nil when every event and the verdict are the same. Events are
// compared as the trace prints them: time, process, kind, action, result
// and every change to the durable systems.
func Diverge(a, b Result) *Divergence {
	n := max(len(a.Trace), len(b.Trace))
	for i := 0; i < n; i++ {
		var ea, eb Event
		if i < len(a.Trace) {
			ea = a.Trace[i]
		}
		if i < len(b.Trace) {
			eb = b.Trace[i]
		}
		if ea.String() == eb.String() {
			continue
		}
		d := &Divergence{Index: i, At: ea.At, Process: ea.Process, First: ea, Second: eb}
		if ea.Kind == "" {
			d.At, d.Process = eb.At, eb.Process
		}
		d.Before = a.Trace[max(0, i-divergenceContext):i]
		return d
	}
	if d := DivergeVerdicts(a, b); d != nil {
		d.Index, d.Before = n, a.Trace[max(0, n-divergenceContext):]
		return d
	}
	return nil
}

// DivergeVerdicts compares the verdicts of two runs, their outcomes and
// every violation, and returns where they part (as a Divergence past
// both traces), or nil: for a run made untraced, whose trace there is
// none of, and its replay.
func DivergeVerdicts(a, b Result) *Divergence {
	va, vb := verdictEvent(a), verdictEvent(b)
	if va.String() == vb.String() {
		return nil
	}
	return &Divergence{Index: max(len(a.Trace), len(b.Trace)), At: b.Duration, Process: "check", First: va, Second: vb}
}

// verdictEvent is a run's verdict as an event: its outcome and every
// violation, for two runs whose traces are alike.
func verdictEvent(r Result) Event {
	e := Event{At: r.Duration, Process: "check", Kind: "verdict", Action: r.Outcome.String()}
	for _, v := range r.Violations {
		e.Changes = append(e.Changes, v.Text())
	}
	return e
}

// Text says in a sentence where the two runs part and what usually makes
// a run go two ways.
func (d Divergence) Text() lang.Text {
	what := d.First.Action
	if d.First.Kind == "" {
		what = d.Second.Action
	}
	return lang.Textf(lang.Text{
		EN: "the same run made twice from the same seed went two ways: they part at event %d (%s, %s, %s). What makes a run go two ways: the wall clock (time.Now), a map ranged over (its order is random), a goroutine, the global math/rand, state kept between runs (a package variable)",
		DE: "derselbe Lauf, zweimal aus demselben Seed gemacht, ging zwei Wege: sie trennen sich bei Ereignis %d (%s, %s, %s). Was einen Lauf zwei Wege gehen lässt: die Uhr der Maschine (time.Now), eine durchlaufene Map (ihre Reihenfolge ist zufällig), eine Goroutine, das globale math/rand, Zustand, der von Lauf zu Lauf bleibt (eine Paketvariable)",
	}, d.Index+1, FormatTime(d.At), d.Process, what)
}

// Lines are the two runs side by side where they part: the events both
// had alike before, then each run's own event (or that it had ended),
// one line each, as the trace prints them.
func (d Divergence) Lines() lang.Text {
	line := func(label lang.Text, e Event, l lang.Lang) string {
		text := strings.ReplaceAll(e.String(), "\n", "\n"+strings.Repeat(" ", 12))
		if e.Kind == "" {
			text = (lang.Text{EN: "(the run had ended)", DE: "(der Lauf war zu Ende)"}).In(l)
		}
		return fmt.Sprintf("%-11s %s", label.In(l)+":", text)
	}
	in := func(l lang.Lang) string {
		var out []string
		for _, e := range d.Before {
			out = append(out, line(lang.Text{EN: "both runs", DE: "beide Läufe"}, e, l))
		}
		out = append(out, line(lang.Text{EN: "first run", DE: "1. Lauf"}, d.First, l),
			line(lang.Text{EN: "second run", DE: "2. Lauf"}, d.Second, l))
		return strings.Join(out, "\n")
	}
	return lang.Text{EN: in(lang.English), DE: in(lang.German)}
}

// Report is the block a replay prints under its run when the run did not
// replay: "NONDETERMINISTIC: " and Text wrapped at width, then Lines
// indented by two. labrun's scenario and explore and grade's -lab.replay
// print it alike.
func (d Divergence) Report(l lang.Lang, width int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", variant.NonDeterministic, lang.Wrap("", "", d.Text().In(l), width))
	for _, line := range strings.Split(d.Lines().In(l), "\n") {
		fmt.Fprintf(&b, "  %s\n", line)
	}
	return b.String()
}
