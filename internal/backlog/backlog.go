package backlog

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/outbox"
	"outboxlab/store"
)

// Params are the rates and the outage.
type Params struct {
	// Rate is how many events arrive per second (R).
	Rate float64
	// Outage is how long the broker is unreachable (D), from time 0.
	Outage time.Duration
	// Relay is how many messages the relay publishes per second once the
	// broker is back (P).
	Relay float64
}

// Validate names every parameter out of range.
func (p Params) Validate() error {
	var errs []error
	if !(p.Rate > 0) || math.IsInf(p.Rate, 0) {
		errs = append(errs, fmt.Errorf("rate %v: want a number of events per second > 0", p.Rate))
	}
	if !(p.Relay > 0) || math.IsInf(p.Relay, 0) {
		errs = append(errs, fmt.Errorf("relay %v: want a number of messages per second > 0", p.Relay))
	}
	if p.Outage < 0 {
		errs = append(errs, fmt.Errorf("outage %s: want a duration >= 0", p.Outage))
	}
	return errors.Join(errs...)
}

// Estimate is the arithmetic of chapter 001.
type Estimate struct {
	// Backlog is R·D, the messages waiting when the broker comes back.
	Backlog float64
	// Drains is false when P ≤ R: the backlog never shrinks.
	Drains bool
	// Drain is Backlog / (P − R), when Drains.
	Drain time.Duration
}

// MaxDrain is the longest drain Compute answers with a number: beyond it
// the relay is not meaningfully faster than the arrivals.
const MaxDrain = 100 * 365 * 24 * time.Hour

// Compute returns the arithmetic estimate. A drain longer than MaxDrain is
// an error that says how long it would take.
func Compute(p Params) (Estimate, error) {
	if err := p.Validate(); err != nil {
		return Estimate{}, err
	}
	e := Estimate{Backlog: p.Rate * p.Outage.Seconds()}
	if p.Relay > p.Rate {
		seconds := e.Backlog / (p.Relay - p.Rate)
		if seconds > MaxDrain.Seconds() {
			return Estimate{}, fmt.Errorf("relay %v/s is only %.3g/s faster than the arrivals (%v/s): the backlog of %.0f would take %.3g years to drain; the arithmetic answers up to %d years",
				p.Relay, p.Relay-p.Rate, p.Rate, e.Backlog, seconds/(365*24*3600), int(MaxDrain.Hours()/24/365))
		}
		e.Drains = true
		e.Drain = time.Duration(seconds * float64(time.Second))
	}
	return e, nil
}

// Growth returns how many SENT messages an outbox without cleanup holds
// after the given time at perDay messages a day (chapter 004: 2,000 a day make
// about 730,000 a year).
func Growth(perDay float64, after time.Duration) float64 {
	return perDay * after.Hours() / 24
}

// Simulation is what the message-level simulation measured.
type Simulation struct {
	// Messages is how many messages were written.
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

// stepTarget is the time step the simulation aims at. The relay claims
// batch = P·stepTarget messages per step (at least one) and the step is
// batch/P, so that the relay publishes exactly P messages per second; the
// chapter's 800/s gives batches of 100. The step scales with nothing else,
// so a run at a hundredth of the rates drains in the same time.
const stepTarget = 125 * time.Millisecond

// batchFor returns the relay's batch size for a relay rate of p per second.
func batchFor(p float64) int { return max(1, int(p*stepTarget.Seconds())) }

// Simulate runs the outbox relay at message level. Every step of batch/P
// seconds, R·step messages are committed to the outbox and the relay steps
// once with a batch of P/8 messages (see stepTarget), against a broker that refuses
// everything during the outage. The relay is the reference with two
// changes for the simulation: it deletes what it sent (DeleteOnSend) so
// that memory stays flat, and it never dead-letters (MaxAttempts 1,000),
// because the arithmetic assumes every message is delivered. Simulate stops
// when the backlog has drained, or at the horizon (twice the arithmetic
// drain time plus the outage, and an hour) when it does not.
func Simulate(p Params) (Simulation, error) { return SimulateWith(p, nil) }

// SimulateWith is Simulate that reports its progress: after every step,
// how much virtual time it simulated, the horizon, and whether it is done.
// progress may be nil.
func SimulateWith(p Params, progress func(simulated, horizon time.Duration, finished bool)) (Simulation, error) {
	if progress == nil {
		progress = func(time.Duration, time.Duration, bool) {}
	}
	est, err := Compute(p)
	if err != nil {
		return Simulation{}, err
	}
	if n := Messages(p, est); n > MaxMessages {
		return Simulation{}, fmt.Errorf("the simulation would write about %.3g messages; it runs up to %d (the chapter's 500/s for 20 minutes is about 1.6 million)", n, MaxMessages)
	}
	clock := &clockT{now: epoch}
	db := store.New("orders")
	if err := outbox.Install(db); err != nil {
		return Simulation{}, err
	}
	cfg := outbox.DefaultConfig("relay-1")
	cfg.DeleteOnSend = true
	cfg.MaxAttempts = 1000
	batch := batchFor(p.Relay)
	cfg.BatchSize = batch
	relay, err := outbox.NewRelay(cfg, outbox.Deps{DB: db, Broker: &sink{clock: clock, downUntil: epoch.Add(p.Outage)}, Gate: effect.Direct{}, Clock: clock})
	if err != nil {
		return Simulation{}, err
	}
	step := time.Duration(float64(batch) / p.Relay * float64(time.Second))
	horizon := 2*(est.Drain+p.Outage) + time.Hour
	if !est.Drains {
		horizon = 2*p.Outage + time.Hour
	}
	var (
		sim             Simulation
		arrivals        float64
		perStepArrivals = p.Rate * step.Seconds()
		outageEnd       = epoch.Add(p.Outage)
		amount          = domain.MustMoney("1.00", "EUR")
		backlogCounted  bool
	)
	for now := epoch; now.Before(epoch.Add(horizon)); now = now.Add(step) {
		clock.now = now
		// Arrivals: one transaction per step with this step's orders.
		arrivals += perStepArrivals
		if n := int(arrivals); n > 0 {
			arrivals -= float64(n)
			tx := db.Begin("service")
			for range n {
				sim.Messages++
				id := "o-" + strconv.Itoa(sim.Messages)
				e := domain.OrderAccepted{OrderID: id, Sequence: 1, Total: amount, AcceptedAt: now}
				if _, err := outbox.Append(tx, id, e, now); err != nil {
					return sim, err
				}
			}
			if err := tx.Commit(); err != nil {
				return sim, err
			}
		}
		if !backlogCounted && !now.Before(outageEnd) {
			sim.Backlog, backlogCounted = db.IndexLen(outbox.Table, outbox.IndexUnsent), true
		}
		if _, err := relay.Step(); err != nil {
			return sim, err
		}

		age := time.Duration(0)
		if oldest, ok := outbox.OldestUnsent(db); ok {
			age = now.Sub(oldest.CreatedAt)
		}
		sim.PeakOldestAge = max(sim.PeakOldestAge, age)
		if !now.Before(outageEnd) && age <= step {
			sim.Drained, sim.Drain = true, now.Sub(outageEnd)
			progress(now.Sub(epoch), horizon, true)
			return sim, nil
		}
		progress(now.Sub(epoch), horizon, false)
	}
	progress(horizon, horizon, true)
	return sim, nil
}

// MaxMessages is the most messages Simulate writes: about 1 GiB of memory.
const MaxMessages = 5_000_000

// Messages returns about how many messages Simulate writes for p: the
// arrivals until the backlog drains, or until the horizon if it does not.
func Messages(p Params, est Estimate) float64 {
	seconds := 2*p.Outage.Seconds() + 3600 // the horizon of a backlog that never drains
	if est.Drains {
		seconds = p.Outage.Seconds() + est.Drain.Seconds()
	}
	return p.Rate * seconds
}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type clockT struct{ now time.Time }

func (c *clockT) Now() time.Time { return c.now }

// sink is the broker of the simulation: down until downUntil, then it
// takes every message and forgets it.
type sink struct {
	clock     *clockT
	downUntil time.Time
}

func (s *sink) Publish(broker.Envelope) error {
	if s.clock.now.Before(s.downUntil) {
		return broker.ErrUnavailable
	}
	return nil
}
