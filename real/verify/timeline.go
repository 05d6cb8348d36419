package verify

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Event is one thing the harness did or saw during a round.
type Event struct {
	// At is the time since the round started.
	At time.Duration
	// Who is "harness", "service", "broker", or a relay process
	// ("relay-2/1": instance relay-2, its first process).
	Who string
	// PID is the operating system's process id of a relay process, else 0.
	PID  int
	What string
}

func (e Event) String() string {
	who := e.Who
	if e.PID != 0 {
		who = fmt.Sprintf("%s pid %d", e.Who, e.PID)
	}
	return fmt.Sprintf("%8.3fs  %-22s %s", e.At.Seconds(), who, e.What)
}

// Timeline is what the harness did and saw in one round, in the order it
// did and saw it. It is safe for concurrent use: relays speak, the broker
// answers and faults fire at once.
type Timeline struct {
	start  time.Time
	mu     sync.Mutex
	events []Event
}

// NewTimeline starts a timeline now.
func NewTimeline() *Timeline { return &Timeline{start: time.Now()} }

// Since returns the time since the timeline started.
func (t *Timeline) Since() time.Duration { return time.Since(t.start) }

// Add appends an event.
func (t *Timeline) Add(who string, pid int, format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.events = append(t.events, Event{At: time.Since(t.start), Who: who, PID: pid, What: fmt.Sprintf(format, args...)})
}

// AddAt appends an event that happened at at, which the harness learnt
// of later (a write the database's history records): Events places it
// in time.
func (t *Timeline) AddAt(at time.Duration, who string, pid int, format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.events = append(t.events, Event{At: at, Who: who, PID: pid, What: fmt.Sprintf(format, args...)})
}

// At returns the time of the round at the wall-clock time wall (a
// database's timestamp: the server runs on this machine's clock).
func (t *Timeline) At(wall time.Time) time.Duration { return wall.Sub(t.start.Round(0)) }

// atOrZero is At of a timestamp that may be NULL (0 for NULL).
func (t *Timeline) atOrZero(wall *time.Time) time.Duration {
	if wall == nil {
		return 0
	}
	return t.At(*wall)
}

// Events returns a copy of the events so far, in the order of their
// times (events added as they happened keep their order).
func (t *Timeline) Events() []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]Event(nil), t.events...)
	slices.SortStableFunc(out, func(a, b Event) int { return cmp.Compare(a.At, b.At) })
	return out
}

// Mentioning returns the events that name any of words (as a whole
// word: e-1 does not name e-12), every event of a process words name by
// its label ("relay-1/2"), and every event of the harness (the faults it
// made), at most limit of them; the last ones when there are more.
func Mentioning(events []Event, limit int, words ...string) []Event {
	want := map[string]bool{}
	for _, w := range words {
		want[w] = true
	}
	var out []Event
	for _, e := range events {
		keep := e.Who == "harness" || want[e.Who]
		for _, tok := range tokens(e.What) {
			keep = keep || want[tok]
		}
		if keep {
			out = append(out, e)
		}
	}
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out
}

// tokens splits text into words of letters, digits and dashes.
func tokens(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
	})
}
