package backlog

import (
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/outbox"
	"outboxlab/store"
)

// Sentinel errors of Plan and Simulate, wrapped with the figures.
var (
	// ErrNeverDrains means the relay is not faster than the arrivals: the
	// backlog grows for ever and there is no drain to simulate.
	ErrNeverDrains = errors.New("the backlog never drains")
	// ErrTooLong means the simulation would step through more messages
	// or steps than it runs in about a minute (MaxMessages, MaxSteps).
	ErrTooLong = errors.New("too long to simulate")
)

// Bounds of the simulation.
const (
	// MaxBatch is the most messages the simulated relay claims in one
	// step; with the step of 125 ms that is a relay of MaxRelay messages
	// a second. A faster relay is simulated at MaxRelay (Plan.Capped).
	MaxBatch = 10_000
	// MaxRelay is the fastest relay the simulation steps through.
	MaxRelay = MaxBatch / 0.125
	// MaxMessages is the most messages Simulate writes, and MaxSteps the
	// most steps it takes: each bound is about a minute on two cores.
	MaxMessages = 20_000_000
	MaxSteps    = 20_000_000
)

// stepTarget is the time step the simulation aims at. The relay claims
// batch = P·stepTarget messages per step (at least one) and the step is
// batch/P, so that the relay publishes exactly P messages per second; the
// chapter's 800/s gives batches of 100. The step scales with nothing else,
// so a run at a hundredth of the rates drains in the same time.
const stepTarget = 125 * time.Millisecond

// Plan is how Simulate runs a Params: the relay it steps and how often,
// and for how long at most.
type Plan struct {
	// Relay is the relay's configuration: the reference's defaults
	// (outbox.DefaultConfig) with the simulation's changes: BatchSize
	// (the rate), DeleteOnSend and MaxAttempts (see Simulate).
	Relay outbox.Config
	// Rate is the relay's throughput the simulation steps through:
	// Params.Relay, or MaxRelay when that is more (then Capped is set).
	Rate   float64
	Capped bool
	// Step is the time between the relay's steps: Relay.BatchSize / Rate.
	Step time.Duration
	// Horizon is when the simulation stops a backlog that has not drained:
	// twice the arithmetic drain time plus the outage, and an hour.
	Horizon time.Duration
	// Messages and Steps are about how many messages the simulation
	// writes (the arrivals until the backlog drains) and steps it takes.
	Messages, Steps float64
}

// PlanFor decides how Simulate runs p, or says why it does not: a relay
// not faster than the arrivals (ErrNeverDrains), a drain beyond
// MaxMessages or MaxSteps (ErrTooLong, with the plan that was too long;
// its Steps is 0 when the arrivals are faster than MaxRelay).
func PlanFor(p Params) (Plan, error) {
	est, err := Compute(p)
	if err != nil {
		return Plan{}, err
	}
	if !est.Drains {
		return Plan{}, fmt.Errorf("%w: the relay (%v/s) is not faster than the arrivals (%v/s)", ErrNeverDrains, p.Relay, p.Rate)
	}
	pl := Plan{Rate: p.Relay}
	if p.Relay > MaxRelay {
		pl.Rate, pl.Capped = MaxRelay, true
		if est, err = Compute(Params{Rate: p.Rate, Outage: p.Outage, Relay: pl.Rate}); err != nil || !est.Drains {
			return pl, fmt.Errorf("%w: the arrivals (%v/s) are faster than the fastest relay the simulation steps through (%v/s)", ErrTooLong, p.Rate, MaxRelay)
		}
	}
	pl.Relay = outbox.DefaultConfig("relay-1")
	pl.Relay.DeleteOnSend = true
	pl.Relay.MaxAttempts = pl.Relay.MaxAttempts + int(math.Ceil(p.Outage.Seconds()/pl.Relay.BackoffCap.Seconds()))
	pl.Relay.BatchSize = max(1, int(pl.Rate*stepTarget.Seconds()))
	pl.Step = time.Duration(float64(pl.Relay.BatchSize) / pl.Rate * float64(time.Second))
	pl.Horizon = 2*(est.Drain+p.Outage) + time.Hour
	seconds := p.Outage.Seconds() + est.Drain.Seconds()
	pl.Messages, pl.Steps = p.Rate*seconds, seconds/pl.Step.Seconds()
	switch {
	case pl.Messages > MaxMessages:
		return pl, fmt.Errorf("%w: about %.3g messages arrive until the backlog drains; the simulation writes up to %d", ErrTooLong, pl.Messages, MaxMessages)
	case pl.Steps > MaxSteps:
		return pl, fmt.Errorf("%w: about %.3g steps of %s until the backlog drains; the simulation takes up to %d", ErrTooLong, pl.Steps, pl.Step, MaxSteps)
	}
	return pl, nil
}

// Simulation is what the message-level simulation measured.
type Simulation struct {
	// Plan is how it ran.
	Plan Plan
	// Messages is how many messages arrived.
	Messages int
	// Backlog is how many were unsent when the broker came back.
	Backlog int
	// Drained is false if the backlog had not drained at the horizon.
	Drained bool
	// Drain is the time from the end of the outage until no message older
	// than one step (batch/P) was left unsent.
	Drain time.Duration
	// PeakOldestAge is the highest age the oldest unsent message reached.
	PeakOldestAge time.Duration
}

// Simulate runs the outbox relay at message level. Every step of batch/P
// seconds, R·step orders arrive, each an order transaction with its outbox
// row, and the reference relay steps once against a broker that refuses
// everything during the outage. The relay is the reference with two
// changes for the simulation: it deletes what it sent (DeleteOnSend),
// and it dead-letters a message only after more attempts than the outage
// allows (MaxAttempts: 10 and one for every BackoffCap of the outage),
// because the arithmetic assumes every message is delivered. Simulate
// stops when the backlog has drained, or at the horizon.
//
// The outbox holds the messages the relay's next claim can reach, not
// the whole backlog: a claim takes the oldest due messages in key order,
// so the outbox is topped up, oldest arrival first and at its arrival
// time, to at least a batch of PENDING messages before every step; the
// arrivals behind them wait as counts per step, a few bytes each instead
// of an outbox row. The relay claims, sends and deletes exactly what it
// would with every row written at its arrival (TestTheWindowChangesNothing),
// in a few megabytes where 600,000 rows took 700.
func Simulate(p Params) (Simulation, error) { return SimulateWith(p, nil) }

// SimulateWith is Simulate that reports its progress: after every step,
// how much virtual time it simulated, the horizon, and whether it is done.
// progress may be nil.
func SimulateWith(p Params, progress func(simulated, horizon time.Duration, finished bool)) (Simulation, error) {
	pl, err := PlanFor(p)
	if err != nil {
		return Simulation{}, err
	}
	// The simulation keeps a few megabytes and allocates gigabytes that
	// die young (rows, claims, transactions): at the default GOGC the
	// collector runs every few megabytes, a third of the time. Forty
	// megabytes more buy that third back.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	s, _, err := run(p, pl, pl.Relay.BatchSize, progress)
	return s, err
}

// runStats are what run saw besides what it measured: a digest of every
// publish (time and message id), how many there were, and the most rows
// the outbox held, for the test that the window changes nothing.
type runStats struct {
	digest    uint64
	publishes int
	peakRows  int
}

// run runs the simulation of p as pl says, topping the outbox up to at
// least minPending PENDING messages before every step (math.MaxInt: every
// arrival is written at once).
func run(p Params, pl Plan, minPending int, progress func(simulated, horizon time.Duration, finished bool)) (Simulation, runStats, error) {
	if progress == nil {
		progress = func(time.Duration, time.Duration, bool) {}
	}
	sim := Simulation{Plan: pl}
	clock := &clockT{now: epoch}
	db := store.New("orders")
	var stats runStats
	if err := outbox.Install(db); err != nil {
		return sim, stats, err
	}
	sink := &sink{clock: clock, downUntil: epoch.Add(p.Outage), digest: fnvOffset}
	relay, err := outbox.NewRelay(pl.Relay, outbox.Deps{DB: db, Broker: sink, Gate: effect.Direct{}, Clock: clock})
	if err != nil {
		return sim, stats, err
	}
	var (
		waiting         = arrivals{pending: -1}
		fraction        float64
		perStepArrivals = p.Rate * pl.Step.Seconds()
		outageEnd       = epoch.Add(p.Outage)
		backlogCounted  bool
	)
	for now := epoch; now.Before(epoch.Add(pl.Horizon)); now = now.Add(pl.Step) {
		clock.now = now
		fraction += perStepArrivals
		if n := int(fraction); n > 0 {
			fraction -= float64(n)
			waiting.add(now, n)
			sim.Messages += n
		}
		if err := waiting.write(db, minPending); err != nil {
			return sim, stats, err
		}
		stats.peakRows = max(stats.peakRows, db.Len(outbox.Table))
		if !backlogCounted && !now.Before(outageEnd) {
			sim.Backlog, backlogCounted = db.IndexLen(outbox.Table, outbox.IndexUnsent)+waiting.n, true
		}
		rep, err := relay.Step()
		if err != nil {
			return sim, stats, err
		}
		if rep.Did() {
			waiting.pending = -1 // the relay changed the outbox: count again
		}
		age := time.Duration(0)
		if oldest, ok := outbox.OldestUnsent(db); ok {
			age = now.Sub(oldest.CreatedAt)
		} else if at, ok := waiting.oldest(); ok {
			age = now.Sub(at)
		}
		sim.PeakOldestAge = max(sim.PeakOldestAge, age)
		if !now.Before(outageEnd) && age <= pl.Step {
			sim.Drained, sim.Drain = true, now.Sub(outageEnd)
			progress(now.Sub(epoch), pl.Horizon, true)
			stats.digest, stats.publishes = sink.digest, sink.publishes
			return sim, stats, nil
		}
		progress(now.Sub(epoch), pl.Horizon, false)
	}
	progress(pl.Horizon, pl.Horizon, true)
	stats.digest, stats.publishes = sink.digest, sink.publishes
	return sim, stats, nil
}

// arrivals are the orders that arrived and are not yet written to the
// outbox, oldest first, as counts per arrival time.
type arrivals struct {
	runs    []arrivalRun
	n       int // waiting in all
	written int // written so far: the next order is o-(written+1)
	// pending is how many PENDING messages the outbox holds, -1 when
	// unknown (after a step of the relay that did something).
	pending int
	// template is the last arrival time's encoded record (see record).
	template struct {
		at      time.Time
		rec     domain.Record
		payload string
	}
}

type arrivalRun struct {
	at time.Time
	n  int
}

func (a *arrivals) add(at time.Time, n int) {
	a.runs = append(a.runs, arrivalRun{at, n})
	a.n += n
}

func (a *arrivals) oldest() (time.Time, bool) {
	if len(a.runs) == 0 {
		return time.Time{}, false
	}
	return a.runs[0].at, true
}

// write writes the oldest arrivals, each at its arrival time, until the
// outbox holds minPending PENDING messages or none is left waiting: one
// order transaction with their outbox rows, as the order service writes
// them.
func (a *arrivals) write(db *store.DB, minPending int) error {
	if a.n == 0 {
		return nil
	}
	if a.pending < 0 {
		a.pending = pending(db, minPending)
	}
	need := minPending - a.pending
	if need <= 0 {
		return nil
	}
	tx := db.Begin("service")
	for need > 0 && a.n > 0 {
		r := &a.runs[0]
		a.written++
		id := "o-" + strconv.Itoa(a.written)
		rec, err := a.record(id, r.at)
		if err == nil {
			_, err = outbox.AppendRecord(tx, id, rec, r.at)
		}
		if err != nil {
			tx.Rollback()
			return err
		}
		need, a.n, r.n, a.pending = need-1, a.n-1, r.n-1, a.pending+1
		if r.n == 0 {
			a.runs = a.runs[1:]
		}
	}
	return tx.Commit()
}

// record is the encoded OrderAccepted of order id, accepted at at: the
// event domain.Encode writes. The orders of one arrival time differ only
// in their id, so the payload is encoded once per arrival time and the id
// put in (an id of letters, digits and a dash needs no escaping in JSON);
// TestARecordIsWhatEncodeWrites holds it to domain.Encode. Where the
// encoding holds no "orderId" to put it in, every order is encoded.
func (a *arrivals) record(id string, at time.Time) (domain.Record, error) {
	event := func(id string) domain.OrderAccepted {
		return domain.OrderAccepted{OrderID: id, Sequence: 1, Total: domain.MustMoney("1.00", "EUR"), AcceptedAt: at}
	}
	if !a.template.at.Equal(at) || a.template.payload == "" {
		rec, err := domain.Encode(event(placeholder))
		if err != nil {
			return rec, err
		}
		a.template.at, a.template.rec = at, rec
		a.template.payload = ""
		if strings.Count(rec.Payload, placeholderJSON) == 1 {
			a.template.payload = rec.Payload
		}
	}
	if a.template.payload == "" {
		return domain.Encode(event(id))
	}
	rec := a.template.rec
	rec.AggregateID = id
	before, after, _ := strings.Cut(a.template.payload, placeholderJSON)
	rec.Payload = before + `"orderId":"` + id + `"` + after
	return rec, nil
}

// placeholder is the order id of a template record; placeholderJSON is
// how its payload holds it.
const (
	placeholder     = "o-0"
	placeholderJSON = `"orderId":"o-0"`
)

// pending counts the PENDING messages in the outbox, up to enough.
func pending(db *store.DB, enough int) int {
	tx := db.Begin("simulation")
	defer tx.Rollback()
	n := 0
	tx.ScanIndex(outbox.Table, outbox.IndexUnsent, func(_ string, v any) bool {
		if v.(outbox.Message).Status == outbox.Pending {
			n++
		}
		return n < enough
	})
	return n
}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type clockT struct{ now time.Time }

func (c *clockT) Now() time.Time { return c.now }

// sink is the broker of the simulation: down until downUntil, then it
// takes every message and forgets it, keeping a digest (FNV-1a) of what
// it was sent and when.
type sink struct {
	clock     *clockT
	downUntil time.Time
	digest    uint64
	publishes int
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func (s *sink) Publish(e broker.Envelope) error {
	s.publishes++
	for i := 0; i < len(e.ID); i++ {
		s.digest = (s.digest ^ uint64(e.ID[i])) * fnvPrime
	}
	s.digest = (s.digest ^ uint64(s.clock.now.UnixNano())) * fnvPrime
	if s.clock.now.Before(s.downUntil) {
		return broker.ErrUnavailable
	}
	return nil
}
