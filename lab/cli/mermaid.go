package cli

import (
	"fmt"
	"io"
	"strings"

	"outboxlab/internal/report"
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
	for _, l := range ordered {
		fmt.Fprintf(w, "    participant %s\n", mermaidID(l))
	}
	first, last := mermaidID(ordered[0]), mermaidID(ordered[len(ordered)-1])
	for _, s := range res.Trace {
		at := sim.FormatTime(s.At)
		p := mermaidID(s.Process)
		switch s.Kind {
		case sim.EventPhase:
			fmt.Fprintf(w, "    Note over %s,%s: %s\n", first, last, mermaidText(at+" phase "+s.Action))
		case sim.EventCommand:
			fmt.Fprintf(w, "    Note over %s: %s\n", p, mermaidText(at+" "+s.Action))
		case sim.EventCrash:
			fmt.Fprintf(w, "    Note over %s: %s\n", p, mermaidText(at+" CRASH at "+s.Action))
		case sim.EventRestart:
			fmt.Fprintf(w, "    Note over %s: %s\n", p, mermaidText(at+" restart"))
		case sim.EventStall:
			fmt.Fprintf(w, "    Note over %s: %s\n", p, mermaidText(at+" STALL at "+s.Action+" ("+strings.Join(s.Changes, " ")+")"))
		case sim.EventResume:
			fmt.Fprintf(w, "    Note over %s: %s\n", p, mermaidText(at+" resume at "+s.Action))
		case sim.EventFault:
			fmt.Fprintf(w, "    Note over %s: %s\n", p, mermaidText(at+" "+s.Action+" ("+strings.Join(s.Changes, " ")+")"))
		case sim.EventError:
			fmt.Fprintf(w, "    Note over %s: %s\n", p, mermaidText(at+" "+s.Result))
		case sim.EventEffect:
			writeEffect(w, at, p, s)
		}
	}
}

// writeEffect draws one crossing of an effect boundary: deliveries that
// preceded it as arrows from the broker, then the effect itself as an arrow
// to the broker (publish, ack) or on the process's own lane (a commit).
func writeEffect(w io.Writer, at, p string, s sim.Event) {
	var local []string
	for _, c := range s.Changes {
		if rest, ok := strings.CutPrefix(c, "broker: delivered "); ok {
			fmt.Fprintf(w, "    broker->>%s: %s\n", p, mermaidText(at+" deliver "+strings.TrimSuffix(rest, " to billing")))
			continue
		}
		if !strings.HasPrefix(c, "broker: ") {
			local = append(local, c)
		}
	}
	arrow := "->>"
	if strings.HasPrefix(s.Result, "error") {
		arrow = "-x"
	}
	label := s.Action
	switch {
	case strings.HasSuffix(s.Action, ".send") || strings.HasSuffix(s.Action, ".publish") || strings.HasSuffix(s.Action, ".ack"):
		if len(s.Messages) > 0 {
			label += " " + s.Messages[0]
		}
		if arrow == "-x" {
			label += " FAILED"
		}
		fmt.Fprintf(w, "    %s%sbroker: %s\n", p, arrow, mermaidText(at+" "+label))
	default:
		if len(local) > 0 {
			label += " " + local[0]
			if n := len(local) - 1; n > 0 {
				label += fmt.Sprintf(" (+%d)", n)
			}
		}
		fmt.Fprintf(w, "    %s%s%s: %s\n", p, arrow, p, mermaidText(at+" "+label))
	}
}

// mermaidID makes a process name a Mermaid participant id.
func mermaidID(name string) string { return strings.ReplaceAll(name, "-", "_") }

// mermaidText escapes what Mermaid would read as syntax in message text.
func mermaidText(s string) string {
	r := strings.NewReplacer("#", "#35;", ";", "#59;", "\n", " ")
	return r.Replace(s)
}
