package scenarios

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"outboxlab/broker"
	"outboxlab/orders"
	"outboxlab/sim"
	"outboxlab/variant"
)

// ref is what a line of a story file refers to: an event of the workload,
// a process, a crash point. It is checked once the whole file is read
// (a fault may aim at an order placed further down), and an error names
// the line.
type ref struct {
	line int
	// what is the line's own words, for the message.
	what   string
	target broker.Target
	// amendment says that target must be an amendment (wrong-currency).
	amendment bool
	process   string
	// point is a crash's or a stall's crash point, k a crash's
	// occurrence (0 for a stall).
	point string
	k     int
	// lasts is how long a stall or a slow commit holds its process.
	lasts time.Duration
}

// checkRefs checks every ref of file name against the run the file
// configures: a target must be an event its workload makes, a process one
// its run has, a crash point one its variant reaches (at least k times,
// when the story crashes once). What cannot be checked without running
// is found by running the story once without its crashes.
func checkRefs(name string, cfg sim.Config, refs []ref) error {
	events := sim.EventKinds(cfg.Workload)
	processes := cfg.Processes()
	crashes := 0
	for _, r := range refs {
		if r.k > 0 {
			crashes++
		}
	}
	var reached map[string]int
	for _, r := range refs {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s: %s", name, r.line, r.what, fmt.Sprintf(format, args...))
		}
		if r.lasts >= cfg.Horizon {
			// The process would still be frozen when the phase ends at its
			// horizon: the run could not tell a stuck variant from it.
			return fail("a freeze of %s runs past the run's horizon: a phase ends %s after it began, and a process frozen that long never moves again in it (at most %s, less the time before it freezes)",
				r.lasts, cfg.Horizon, cfg.Horizon-time.Second)
		}
		if r.target != (broker.Target{}) {
			kind, ok := events[r.target]
			switch {
			case !ok:
				return fail("the workload makes no event %s (its events: %s)", r.target, eventList(events))
			case r.amendment && kind != orders.Amend:
				return fail("%s is made by a %s command; want an amendment's event (an amend line's)", r.target, kind)
			}
		}
		if r.process != "" && !slices.Contains(processes, r.process) {
			return fail("this story has no process %s (its processes: %s; relays and services lines add more)", r.process, strings.Join(processes, ", "))
		}
		if r.point == "" {
			continue
		}
		if reached == nil {
			var err error
			if reached, err = reachedPoints(cfg); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		switch n := reached[r.point]; {
		case n == 0:
			return fail("variant %s never reaches %s in this story (the points it reaches: %s)", cfg.Variant.Name, r.point, pointList(reached))
		case crashes == 1 && r.k > n:
			return fail("variant %s reaches %s %d time(s) in this story, not %d", cfg.Variant.Name, r.point, n, r.k)
		}
	}
	return nil
}

// reachedPoints runs cfg once without its crashes and returns how often
// each crash point was reached.
func reachedPoints(cfg sim.Config) (map[string]int, error) {
	cfg.Crashes, cfg.Trace = nil, false
	res, err := sim.Run(cfg)
	if err != nil {
		return nil, err
	}
	return res.Reached, nil
}

// eventList names a workload's events per order: "o-1#1..3, o-2#1".
func eventList(events map[broker.Target]orders.Kind) string {
	last := map[string]int{}
	for t := range events {
		last[t.AggregateID] = max(last[t.AggregateID], t.Sequence)
	}
	ids := make([]string, 0, len(last))
	for id := range last {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("%s#1", id)
		if last[id] > 1 {
			parts[i] += fmt.Sprintf("..%d", last[id])
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// pointList names the crash points reached, sorted.
func pointList(reached map[string]int) string {
	points := make([]string, 0, len(reached))
	for p, n := range reached {
		if n > 0 {
			points = append(points, p)
		}
	}
	sort.Strings(points)
	return strings.Join(points, ", ")
}

// faultRef is what a fault line refers to.
func faultRef(line int, words []string, f sim.Fault) ref {
	r := ref{line: line, what: strings.Join(words, " "), target: f.Target, process: f.Process}
	switch f.Kind {
	case sim.FaultWrongCurrency:
		r.amendment = true
	case sim.FaultStall:
		r.point, r.lasts = f.Point, f.For
	case sim.FaultSlowCommit:
		r.lasts = f.For
	}
	return r
}

// fileVariant is the variant a file runs when none is chosen.
func fileVariant(name string) (variant.Variant, error) {
	if name == "" {
		name = "outbox"
	}
	return FindVariant(name)
}
