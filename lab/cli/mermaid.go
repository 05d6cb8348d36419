package cli

import (
	"fmt"
	"io"
	"strings"

	"outboxlab/broker"
	"outboxlab/internal/report"
	"outboxlab/lang"
	"outboxlab/sim"
)

// writeMermaid renders a run as a Mermaid sequence diagram: one lane per
// process and one for the broker; effects are messages between lanes (or
// notes on a lane), crashes and phases are notes.
func writeMermaid(w io.Writer, title string, res sim.Result) {
	// The lanes as the HTML page draws them: the broker between the
	// senders and billing, relay-1 before relay-2.
	ordered := report.Lanes(res.Trace)
	fmt.Fprintln(w, "sequenceDiagram")
	fmt.Fprintf(w, "    title %s\n", mermaidText(title))
	for _, name := range ordered {
		fmt.Fprintf(w, "    participant %s\n", mermaidID(name))
	}
	first, last := mermaidID(ordered[0]), mermaidID(ordered[len(ordered)-1])
	l := langOf(w)
	note := func(over string, parts ...lang.Text) {
		fmt.Fprintf(w, "    Note over %s: %s\n", over, mermaidText(strings.TrimSpace(lang.Join(parts, " ").In(l))))
	}
	for _, s := range res.Trace {
		at := sim.TimeText(s.At)
		p := mermaidID(s.Process)
		changes := lang.Textf(lang.Plain("(%s)"), lang.Join(s.Changes, " "))
		switch s.Kind {
		case sim.EventPhase:
			note(first+","+last, at, s.Kind.Text(), s.What())
		case sim.EventCommand:
			note(p, at, s.What())
		case sim.EventRestart:
			note(p, at, s.Kind.Text())
		case sim.EventCrash, sim.EventResume:
			note(p, at, lang.Text{EN: strings.ToUpper(s.Kind.Text().EN), DE: strings.ToUpper(s.Kind.Text().DE)}, s.What())
		case sim.EventStall:
			note(p, at, lang.Text{EN: "STALL", DE: "STILLSTAND"}, s.What(), changes)
		case sim.EventFault:
			note(p, at, s.What(), changes)
		case sim.EventError:
			note(p, at, s.Result)
		case sim.EventEffect:
			writeEffect(w, at, p, s)
		}
	}
}

// writeEffect draws one crossing of an effect boundary: deliveries that
// preceded it as arrows from the broker to their subscriber, then the effect itself as an arrow
// to the broker (publish, ack) or on the process's own lane (a commit).
// The first changes of an event are its broker actions (s.Broker), the
// rows it committed follow.
func writeEffect(w io.Writer, at lang.Text, p string, s sim.Event) {
	l := langOf(w)
	for _, a := range s.Broker {
		if a.Kind == broker.Delivered {
			fmt.Fprintf(w, "    broker->>%s: %s\n", mermaidID(a.Subscriber), mermaidText(lang.Join([]lang.Text{at, sim.BrokerKindText(a.Kind), lang.Plain(a.MessageID), lang.Plain(fmt.Sprintf("%s %s#%d", a.Event.Type, a.Event.AggregateID, a.Event.Sequence))}, " ").In(l)))
		}
	}
	local := s.Changes[min(len(s.Broker), len(s.Changes)):]
	arrow := "->>"
	if strings.HasPrefix(s.Result.EN, "error") {
		arrow = "-x"
	}
	label := lang.Plain(s.Action)
	switch {
	case strings.HasSuffix(s.Action, ".send") || strings.HasSuffix(s.Action, ".publish") || strings.HasSuffix(s.Action, ".ack"):
		if len(s.Messages) > 0 {
			label = lang.Textf(lang.Plain("%s %s"), label, s.Messages[0])
		}
		if arrow == "-x" {
			label = lang.Textf(lang.Text{EN: "%s FAILED", DE: "%s GESCHEITERT"}, label)
		}
		fmt.Fprintf(w, "    %s%sbroker: %s\n", p, arrow, mermaidText(at.In(l)+" "+label.In(l)))
	default:
		if len(local) > 0 {
			label = lang.Textf(lang.Plain("%s %s"), label, local[0])
			if n := len(local) - 1; n > 0 {
				label = lang.Textf(lang.Plain("%s (+%d)"), label, n)
			}
		}
		fmt.Fprintf(w, "    %s%s%s: %s\n", p, arrow, p, mermaidText(at.In(l)+" "+label.In(l)))
	}
}

// mermaidID makes a process name a Mermaid participant id.
func mermaidID(name string) string { return strings.ReplaceAll(name, "-", "_") }

// mermaidText escapes what Mermaid would read as syntax in message text.
func mermaidText(s string) string {
	r := strings.NewReplacer("#", "#35;", ";", "#59;", "\n", " ")
	return r.Replace(s)
}
