package explore

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/orders"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// Source draws one choice: a whole number in [0, n). name says what is
// being drawn, for sources that log their draws.
type Source interface {
	Intn(name string, n int) int
}

// Schedule is one generated run.
type Schedule struct {
	// Seed fixes message ids and the interleaving of relays and consumer.
	Seed     uint64
	Relays   int
	Services int
	Workload []sim.Command
	Faults   []sim.Fault
	Crashes  []sim.Crash
	// Operations are the operator's work after quiesce (nil: the
	// default, sim.DefaultOperations).
	Operations []sim.Operation
}

// CrashPoints are the points a schedule may crash at: both sides of every
// effect boundary the components declare that exploration draws
// (scenarios.DrawnBoundaries), in its order. A point a variant never reaches
// does not fire.
var CrashPoints = func() []string {
	var points []string
	for _, b := range scenarios.DrawnBoundaries() {
		points = append(points, b.Before(), b.After())
	}
	return points
}()

// faultKinds are the fault kinds Generate draws one of, up to three times
// a schedule, in the order sim's registry gives them (sim.FaultSpec says
// how each is drawn, or why it is not).
var faultKinds = sim.DrawnKinds()

// Generate draws a schedule: 1 to 5 orders, each in a currency of its own
// (EUR, USD, CHF or JPY) with amounts of any cents (in one schedule of
// four, of any size: see widen), 1 to 8 commands
// (place, amend, cancel) a few seconds apart, 1 or 2 service instances, 1 to 3 relays, up
// to 3 faults (broker faults aimed at the events the workload produces,
// stalls, slow commits, clock skews, kills), up to 3 crashes, or up to 10
// in one schedule of four (crash loops), in one schedule of four a command
// the service must refuse (an order amended after its cancel), up to 2
// failed commits, and the operator's work (in three schedules of four
// with cleanups at drawn ages); after everything else, in one schedule
// of four two to five failed commits in a row, and in one of four the
// broker down from the start for 2 s to about two minutes (see widen).
func Generate(src Source) Schedule {
	s := drawn(src)
	s.complete()
	return s
}

// drawn is Generate's part drawn from src, which must be drawn in order;
// complete draws the rest from the schedule's own source, which needs no
// other schedule: exploration's workers do it.
func drawn(src Source) Schedule {
	s := Schedule{Seed: uint64(src.Intn("seed", 1000)), Relays: 1 + src.Intn("relays", 3), Services: 1 + src.Intn("services", 2)}
	type order struct {
		id        string
		version   int
		cancelled bool
	}
	var placed []*order
	nOrders := 1 + src.Intn("orders", 5)
	at := time.Duration(0)
	var events, amendments []broker.Target
	for i, n := 0, 1+src.Intn("commands", 8); i < n; i++ {
		at += time.Duration(src.Intn("gap", 4)) * time.Second
		var open []*order
		for _, o := range placed {
			if !o.cancelled {
				open = append(open, o)
			}
		}
		kind := src.Intn("kind", 3) // 0 place, 1 amend, 2 cancel
		if len(placed) < nOrders && (kind == 0 || len(open) == 0) {
			o := &order{id: fmt.Sprintf("o-%d", len(placed)+1), version: 1}
			placed = append(placed, o)
			s.Workload = append(s.Workload, sim.Command{At: at, Command: orders.Command{Kind: orders.Place, OrderID: o.id, Amount: money(10 + src.Intn("amount", 90))}})
			events = append(events, broker.Target{AggregateID: o.id, Sequence: 1})
			continue
		}
		if len(open) == 0 {
			continue
		}
		o := open[src.Intn("order", len(open))]
		o.version++
		events = append(events, broker.Target{AggregateID: o.id, Sequence: o.version})
		if kind == 2 {
			o.cancelled = true
			s.Workload = append(s.Workload, sim.Command{At: at, Command: orders.Command{Kind: orders.Cancel, OrderID: o.id, Text: "cancelled"}})
		} else {
			s.Workload = append(s.Workload, sim.Command{At: at, Command: orders.Command{Kind: orders.Amend, OrderID: o.id, Amount: money(1 + src.Intn("amount", 9)), Text: "extra"}})
			amendments = append(amendments, events[len(events)-1])
		}
	}
	draw := sim.FaultDraw{Src: src, Relays: s.Relays, Services: s.Services, Events: events, Amendments: amendments}
	for i, n := 0, src.Intn("faults", 4); i < n && len(events) > 0; i++ {
		if f, ok := sim.DrawFault(faultKinds[src.Intn("fault", len(faultKinds))], &draw); ok {
			s.Faults = append(s.Faults, f)
		}
	}
	s.Crashes = drawCrashes(src, s.Relays, draw.Lost) // at most one relay is lost for good, by a kill or a crash
	// Drawn last, so that the draws before them stay what they were before
	// they existed: a command the service must refuse (one schedule in
	// four), and failed commits.
	var cancelled []*order
	for _, o := range placed {
		if o.cancelled {
			cancelled = append(cancelled, o)
		}
	}
	if src.Intn("refused", 4) == 0 && len(cancelled) > 0 {
		o := cancelled[src.Intn("refused-order", len(cancelled))]
		s.Workload = append(s.Workload, sim.Command{At: at + time.Second,
			Command: orders.Command{Kind: orders.Amend, OrderID: o.id, Amount: money(1), Text: "after the cancel"}})
	}
	for i, n := 0, src.Intn("commit-failures", 3); i < n; i++ {
		s.Faults = append(s.Faults, sim.Fault{Kind: sim.FaultCommitFailure,
			Point:      scenarios.CommitBoundaries[src.Intn("commit-failure-at", len(scenarios.CommitBoundaries))],
			Occurrence: 1 + src.Intn("occurrence", 4)})
	}
	return s
}

// complete draws the rest of a schedule drawn: the currencies, the cents
// and the operator's work come from a source of their own, seeded by
// everything drawn before: drawn from src, they would shift every later
// schedule of an exploration, and the seeds that found a mistake would
// stop finding it.
func (s *Schedule) complete() {
	own := ownSource(*s)
	priceInCurrencies(own, s.Workload)
	s.Operations = operations(own)
	widen(own, s) // after every draw of own's: those stay what they were
}

// drawCrashes draws up to 3 crashes, or up to 10 in one schedule of four
// (crash loops), for a schedule with that many relays; lost says a relay
// is lost for good already (at most one is).
func drawCrashes(src Source, relays int, lost bool) []sim.Crash {
	var out []sim.Crash
	crashes := src.Intn("crashes", 4)
	if src.Intn("crash-loop", 4) == 0 {
		crashes = src.Intn("crashes", 11)
	}
	for i := 0; i < crashes; i++ {
		c := sim.Crash{
			Point:      CrashPoints[src.Intn("crash-point", len(CrashPoints))],
			Occurrence: 1 + src.Intn("occurrence", 4),
		}
		if strings.HasPrefix(c.Point, "relay.") && relays > 1 && !lost && src.Intn("crash-for-good", 3) == 0 {
			c.ForGood, lost = true, true // its host is gone: another relay must take over
		}
		out = append(out, c)
	}
	return out
}

// ownSource returns a source seeded by the schedule s drawn so far.
func ownSource(s Schedule) Source {
	h := fnv.New64a()
	for _, line := range s.Lines() {
		h.Write([]byte(line))
	}
	return randSource{rand.New(rand.NewPCG(h.Sum64(), 0x63757272656e6379))}
}

// cleanupWaits are the waits before a cleanup exploration draws from:
// at once, hours, just under and just over the retention period (from
// the last cleanup), weeks.
var cleanupWaits = []sim.Operation{
	{Kind: sim.OpCleanup},
	{Kind: sim.OpCleanup, Wait: 2 * time.Hour},
	{Kind: sim.OpCleanup, Retentions: 1, Wait: -time.Hour},
	{Kind: sim.OpCleanup, Retentions: 1, Wait: time.Hour},
	{Kind: sim.OpCleanup, Retentions: 4},
}

// replayOutages are how long the broker may be down when the operator
// fixes the causes: never, a minute, five (every one of them shorter
// than the course's retry window: a replay into a longer outage ends as
// a dead letter again by right, and the operator would replay it again).
var replayOutages = []time.Duration{0, time.Minute, 5 * time.Minute}

// operations draws the operator's work after quiesce: up to three
// cleanups at drawn waits, and a replay before the fix or not, in any
// order; the fix, the broker down for a drawn time; up to three cleanups
// and a second replay or not, in any order.
func operations(src Source) []sim.Operation {
	var ops []sim.Operation
	around := func(extra sim.OperationKind) {
		n := src.Intn("cleanups", 4)
		at := -1
		if src.Intn(string(extra), 2) == 0 {
			at = src.Intn(string(extra)+"-at", n+1)
		}
		for i := 0; i <= n; i++ {
			if i == at {
				ops = append(ops, sim.Operation{Kind: extra})
			}
			if i < n {
				ops = append(ops, cleanupWaits[src.Intn("cleanup-wait", len(cleanupWaits))])
			}
		}
	}
	around(sim.OpReplayUnfixed)
	ops = append(ops, sim.Operation{Kind: sim.OpFix, Outage: replayOutages[src.Intn("replay-outage", len(replayOutages))]})
	around(sim.OpReplayAgain)
	return ops
}

// currencies are the currencies an order is drawn in: three with cents,
// one without.
var currencies = []domain.Currency{"EUR", "USD", "CHF", "JPY"}

// priceInCurrencies draws, after everything else, a currency for each
// order and the cents of each amount (any, so that sums floating point
// gets wrong occur), and rewrites the workload's amounts with them: a
// consumer may assume neither whole amounts nor one currency.
func priceInCurrencies(src Source, workload []sim.Command) {
	currency := map[string]domain.Currency{}
	for i := range workload {
		c := &workload[i].Command
		if c.Kind == orders.Place {
			currency[c.OrderID] = currencies[src.Intn("currency", len(currencies))]
		}
		if c.Kind == orders.Place || c.Kind == orders.Amend {
			c.Amount.Minor += int64(src.Intn("cents", 100))
			if cur, ok := currency[c.OrderID]; ok {
				c.Amount.Currency = cur
			}
		}
	}
}

func money(units int) domain.Money { return domain.Money{Minor: int64(units) * 100, Currency: "EUR"} }

// Config returns the simulator configuration that runs s with v. A variant
// that supports fewer relays than s asks for (Variant.MaxRelays) runs with
// as many as it supports.
func (s Schedule) Config(v variant.Variant) sim.Config {
	cfg := sim.DefaultConfig(v, s.Workload, s.Seed)
	cfg.Relays = s.Relays
	cfg.Services = max(s.Services, 1)
	if v.MaxServices > 0 {
		cfg.Services = min(cfg.Services, v.MaxServices)
	}
	if v.MaxRelays > 0 {
		cfg.Relays = min(s.Relays, v.MaxRelays)
	}
	cfg.Faults = nil
	for _, f := range s.Faults {
		if f.Kind == sim.FaultKill && f.For >= sim.ForGood && cfg.Relays < 2 {
			f.For = 0 // the variant runs one relay: it comes back
		}
		cfg.Faults = append(cfg.Faults, f)
	}
	cfg.Crashes = nil
	for _, c := range s.Crashes {
		c.ForGood = c.ForGood && cfg.Relays > 1 // the variant's only relay comes back
		cfg.Crashes = append(cfg.Crashes, c)
	}
	cfg.Operations = s.Operations
	cfg.Trace = false
	return cfg
}

// Size is the number of commands, faults and crashes, and the relays beyond
// the first: what shrinking makes small.
func (s Schedule) Size() int {
	return len(s.Workload) + len(s.Faults) + len(s.Crashes) + s.Relays - 1 + max(s.Services, 1) - 1 + max(len(s.Operations)-1, 0)
}

// StoryLines describes the schedule for its reader, one line per item,
// each in a story file's words, the same in both languages: its seed and
// processes first ("seed 0", "relays 2", "services 3"), then Lines'
// items.
func (s Schedule) StoryLines() []string {
	out := []string{fmt.Sprintf("seed %d", s.Seed), fmt.Sprintf("relays %d", s.Relays)}
	if s.Services > 1 {
		out = append(out, fmt.Sprintf("services %d", s.Services))
	}
	return append(out, s.Lines()[1:]...)
}

// Lines describes the schedule, one line per item; ownSource hashes it,
// so that a change to it draws every schedule anew (StoryLines is the
// reader's).
func (s Schedule) Lines() []string {
	out := []string{fmt.Sprintf("seed %d, %d relay(s)", s.Seed, s.Relays)}
	if s.Services > 1 {
		out[0] += fmt.Sprintf(", %d service instances", s.Services)
	}
	for _, c := range s.Workload {
		out = append(out, fmt.Sprintf("at %s: %s", c.At, c.Command))
	}
	for _, f := range s.Faults {
		out = append(out, "fault "+f.String())
	}
	for _, c := range s.Crashes {
		out = append(out, "crash "+c.String())
	}
	for _, o := range s.Operations {
		out = append(out, "operator: "+o.String())
	}
	return out
}
