package report

import (
	"cmp"
	"fmt"
	"html"
	"slices"
	"strconv"
	"strings"

	"outboxlab/broker"
	"outboxlab/lang"
	"outboxlab/sim"
)

// The diagram's geometry, in pixels.
const (
	axisWidth  = 144 // the time axis on the left ("day 35 01:00:05.116" and a gap before a phase's label)
	laneWidth  = 130
	headHeight = 34 // the lane names on top
	rowHeight  = 26 // one event per row: its label, and up to three arrows below it
	arrowGap   = 5  // between two arrows of one event: their heads (5 px) do not touch
	labelChars = 24 // an event's label beside its marker; the whole text is its tooltip
	// labelRoom is what the last lane's labels take right of its line:
	// the gap and 24 characters of 11 px type (at most about 6.5 px each).
	labelRoom = 9 + labelChars*13/2 + 6
)

// Lanes returns a run's lanes, left to right, as a diagram draws them: the
// order service's instances, the relays and other producers, the broker,
// then billing and the other subscribers; in each, the processes in their
// order (relay-1, relay-2, ..., relay-10).
func Lanes(trace []sim.Event) []string {
	rank := func(name string, subscriber bool) int {
		switch {
		case strings.HasPrefix(name, "service"):
			return 0
		case name == "broker":
			return 3
		case subscriber || name == "billing":
			return 4
		}
		return 2
	}
	subscribers := map[string]bool{}
	for _, e := range trace {
		for _, a := range e.Broker {
			if a.Subscriber != "" {
				subscribers[a.Subscriber] = true
			}
		}
	}
	seen := map[string]bool{"sim": true}
	var names []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, e := range trace {
		add(e.Process)
		for _, a := range e.Broker {
			add("broker")
			if a.Subscriber != "" {
				add(a.Subscriber)
			}
		}
	}
	add("broker")
	// In a rank, the processes in their order: relay-1, relay-2, ...,
	// relay-10; other names as they first appear.
	slices.SortStableFunc(names, func(a, b string) int {
		if c := cmp.Compare(rank(a, subscribers[a]), rank(b, subscribers[b])); c != 0 {
			return c
		}
		pa, na, oka := numbered(a)
		pb, nb, okb := numbered(b)
		if oka && okb && pa == pb {
			return cmp.Compare(na, nb)
		}
		return 0
	})
	return names
}

// numbered splits "relay-12" into "relay" and 12.
func numbered(name string) (string, int, bool) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(name[i+1:])
	return name[:i], n, err == nil
}

// writeSVG draws trace as a sequence diagram whose elements' ids start with
// id: id-e7 is the 8th event.
func writeSVG(b *strings.Builder, id string, trace []sim.Event, l lang.Lang) {
	names := Lanes(trace)
	x := map[string]int{}
	for i, n := range names {
		x[n] = axisWidth + laneWidth/2 + i*laneWidth
	}
	width := axisWidth + (len(names)-1)*laneWidth + laneWidth/2 + labelRoom
	height := headHeight + len(trace)*rowHeight + 10
	y := func(i int) int { return headHeight + i*rowHeight + rowHeight/2 }
	fmt.Fprintf(b, `<svg class="diagram" id="%s-svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-labelledby="%s-svgtitle" data-top="%d" data-row="%d">`,
		id, width, height, width, height, id, headHeight, rowHeight)
	fmt.Fprintf(b, `<title id="%s-svgtitle">%s</title>`, id, esc(lang.Textf(lang.Text{EN: "sequence diagram, %d events", DE: "Sequenzdiagramm, %d Ereignisse"}, len(trace)).In(l)))
	fmt.Fprintf(b, `<defs><marker id="%s-ah" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>`, id)

	// Phases as bands behind everything.
	for i, e := range trace {
		if e.Kind != sim.EventPhase {
			continue
		}
		end := len(trace)
		for j := i + 1; j < len(trace); j++ {
			if trace[j].Kind == sim.EventPhase {
				end = j
				break
			}
		}
		fmt.Fprintf(b, `<rect class="band band-%s" x="0" y="%d" width="%d" height="%d"/>`,
			attr(e.Action), headHeight+i*rowHeight, width, (end-i)*rowHeight)
		fmt.Fprintf(b, `<text class="phase" x="%d" y="%d">%s</text>`, width-6, headHeight+i*rowHeight+14, esc(e.What().In(l)))
	}
	writeIntervals(b, trace, x, y, l)
	// Lanes.
	for _, n := range names {
		fmt.Fprintf(b, `<text class="lane" x="%d" y="20">%s</text><line class="lifeline" x1="%d" y1="%d" x2="%d" y2="%d"/>`,
			x[n], esc(n), x[n], headHeight-6, x[n], height)
	}
	fmt.Fprintf(b, `<rect class="cursor" id="%s-cursor" x="0" y="%d" width="%d" height="%d"/>`, id, headHeight, width, rowHeight)

	for i, e := range trace {
		yi := y(i)
		first, _, _ := strings.Cut(e.In(l), "\n") // the changes are in the tables beside
		fmt.Fprintf(b, `<g class="ev k-%s" id="%s-e%d"><title>%s</title>`, attr(string(e.Kind)), id, i, esc(first))
		fmt.Fprintf(b, `<text class="time" x="6" y="%d">%s</text>`, yi+4, esc(sim.TimeText(e.At).In(l)))
		if e.Kind == sim.EventPhase {
			fmt.Fprintf(b, `<text class="label" x="%d" y="%d">%s %s</text></g>`, axisWidth, yi+4, esc(e.Kind.Text().In(l)), esc(e.What().In(l)))
			continue
		}
		px := x[e.Process]
		for k, a := range e.Broker {
			writeArrow(b, id, a, px, x, yi+2+arrowGap*min(k, 2), l)
		}
		writeMarker(b, e, px, yi)
		fmt.Fprintf(b, `<text class="label" x="%d" y="%d">%s</text>`, px+9, yi-3, esc(short(label(e).In(l))))
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
}

// writeIntervals draws what lasts over several events behind them: a
// broker outage over the broker's lane, from its beginning to its end;
// a stalled process's pause over its lane, from the stall to where it
// moves again (its next event). One that does not end within the trace
// lasts to its end.
func writeIntervals(b *strings.Builder, trace []sim.Event, x map[string]int, y func(int) int, l lang.Lang) {
	last := len(trace) - 1
	band := func(class, lane string, from, to int, tip string) {
		fmt.Fprintf(b, `<rect class="%s" x="%d" y="%d" width="%d" height="%d"><title>%s</title></rect>`,
			class, x[lane]-10, y(from)-rowHeight/2, 20, (to-from+1)*rowHeight, esc(tip))
	}
	for i, e := range trace {
		switch {
		case e.Kind == sim.EventFault && e.Action == string(sim.FaultOutage):
			to := last
			for j := i + 1; j < len(trace); j++ {
				if trace[j].Kind == sim.EventFault && trace[j].Process == e.Process && trace[j].Action != e.Action {
					to = j
					break
				}
			}
			band("outage", e.Process, i, to, e.What().In(l)+": "+lang.Join(e.Changes, " ").In(l))
		case e.Kind == sim.EventStall:
			to := last
			for j := i + 1; j < len(trace); j++ {
				if trace[j].Process == e.Process {
					to = j
					break
				}
			}
			band("pause", e.Process, i, to, label(e).In(l)+": "+lang.Join(e.Changes, " ").In(l))
		}
	}
}

// writeMarker draws what happened to the process itself.
func writeMarker(b *strings.Builder, e sim.Event, px, y int) {
	switch {
	case e.Kind == sim.EventCrash:
		fmt.Fprintf(b, `<path class="crash" d="M%d,%d l10,10 m0,-10 l-10,10"/>`, px-5, y-5)
	case e.Kind == sim.EventRestart:
		fmt.Fprintf(b, `<circle class="restart" cx="%d" cy="%d" r="6"/>`, px, y)
	case e.Kind == sim.EventStall:
		fmt.Fprintf(b, `<rect class="stall" x="%d" y="%d" width="3" height="10"/><rect class="stall" x="%d" y="%d" width="3" height="10"/>`, px-4, y-5, px+1, y-5)
	case e.Kind == sim.EventResume:
		fmt.Fprintf(b, `<path class="resume" d="M%d,%d l9,5 l-9,5 z"/>`, px-4, y-5)
	case e.Kind == sim.EventFault:
		fmt.Fprintf(b, `<rect class="fault" x="%d" y="%d" width="10" height="10"/>`, px-5, y-5)
	case e.Kind == sim.EventError || (e.Result.EN != "" && e.Result.EN != "ok"):
		fmt.Fprintf(b, `<path class="error" d="M%d,%d l6,10 l-12,0 z"/>`, px, y-6)
	case e.Kind == sim.EventCommand:
		fmt.Fprintf(b, `<rect class="command" x="%d" y="%d" width="9" height="9"/>`, px-4, y-4)
	default:
		fmt.Fprintf(b, `<circle class="effect" cx="%d" cy="%d" r="4"/>`, px, y)
	}
}

// writeArrow draws one broker action: a publish from the sender to the
// broker, a delivery to a subscriber, an acknowledgement back; the
// broker's own faults as a mark on its lane.
func writeArrow(b *strings.Builder, id string, a broker.Action, from int, x map[string]int, y int, l lang.Lang) {
	bx := x["broker"]
	x1, x2, class := from, bx, "publish"
	switch a.Kind {
	case broker.Published:
	case broker.PublishFailed, broker.TimedOut:
		class = "failed"
	case broker.Delivered, broker.Redelivered:
		x1, x2, class = bx, x[a.Subscriber], "deliver"
	case broker.Acked:
		x1, x2, class = x[a.Subscriber], bx, "ack"
	case broker.Nacked:
		x1, x2, class = x[a.Subscriber], bx, "failed"
	default: // duplicated, held, reordered, requeued: the broker's doing
		x1, x2, class = bx, bx, "fault"
	}
	tip := sim.BrokerActionText(a).In(l) + "\n" + lang.Textf(lang.Text{EN: "%s %s v%d, payload %s", DE: "%s %s v%d, Nutzlast %s"},
		a.Event.Type, a.Event.AggregateType, a.Event.Version, a.Event.Payload).In(l)
	fmt.Fprintf(b, `<g class="msg %s"><title>%s</title>`, class, esc(tip))
	if x1 == x2 {
		fmt.Fprintf(b, `<circle cx="%d" cy="%d" r="5"/><text x="%d" y="%d">%s</text></g>`, bx, y, bx+8, y+4, esc(sim.BrokerKindText(a.Kind).In(l)))
		return
	}
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" marker-end="url(#%s-ah)"/></g>`, x1, y, x2, y, id)
}

// label is the short text beside an event's marker.
func label(e sim.Event) lang.Text {
	switch e.Kind {
	case sim.EventCrash, sim.EventStall:
		return lang.Join([]lang.Text{e.Kind.Text(), lang.Plain(e.Action)}, " ")
	case sim.EventRestart, sim.EventResume:
		return e.Kind.Text()
	case sim.EventFault:
		return e.What()
	case sim.EventError:
		return e.Result
	}
	if e.Result.EN != "" && e.Result.EN != "ok" {
		return lang.Textf(lang.Text{EN: "%s refused", DE: "%s abgewiesen"}, e.Action)
	}
	return e.What()
}

func short(s string) string {
	r := []rune(s)
	if len(r) <= labelChars {
		return s
	}
	return string(r[:labelChars-1]) + "…"
}

// esc escapes text for an element or an attribute.
func esc(s string) string { return html.EscapeString(s) }

// attr makes s usable in a class name.
func attr(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, strings.ToLower(s))
}
