package backlog_test

import (
	"errors"
	"testing"
	"time"

	"outboxlab/internal/backlog"
)

func TestSeed001Arithmetic(t *testing.T) {
	e, err := backlog.Compute(backlog.Params{Rate: 500, Outage: 20 * time.Minute, Relay: 800})
	if err != nil {
		t.Fatal(err)
	}
	if e.Backlog != 600000 || !e.Drains || e.Drain != 33*time.Minute+20*time.Second {
		t.Fatalf("estimate = %+v, want 600000 messages draining in 33m20s", e)
	}
	e, _ = backlog.Compute(backlog.Params{Rate: 500, Outage: time.Minute, Relay: 500})
	if e.Drains || e.Backlog != 30000 {
		t.Fatalf("P = R: %+v, want a backlog that never drains", e)
	}
}

func TestGrowthOfAnOutboxWithoutCleanup(t *testing.T) {
	if got := backlog.Growth(2000, 365*24*time.Hour); got != 730000 {
		t.Fatalf("2,000 a day for a year = %v, want 730,000", got)
	}
}

func TestParamsValidate(t *testing.T) {
	for _, p := range []backlog.Params{{Rate: 0, Relay: 1}, {Rate: 1, Relay: -1}, {Rate: 1, Relay: 1, Outage: -time.Second}} {
		if _, err := backlog.Compute(p); err == nil {
			t.Errorf("Compute(%+v) accepted", p)
		}
	}
}

// TestSimulationAgreesWithTheArithmetic runs chapter 001's backlog at one
// hundredth of its rates: 5/s, a 20-minute outage, a relay of 8/s. The drain
// time R·D/(P−R) does not change with the scale (33m20s either way), so the
// message-level simulation checks the same arithmetic with 16,000 messages
// instead of 1.6 million; BenchmarkBacklog and `labrun backlog --simulate`
// run the chapter's own figures.
func TestSimulationAgreesWithTheArithmetic(t *testing.T) {
	p := backlog.Params{Rate: 5, Outage: 20 * time.Minute, Relay: 8}
	est, _ := backlog.Compute(p)
	sim, err := backlog.Simulate(p)
	if err != nil {
		t.Fatal(err)
	}
	if !sim.Drained {
		t.Fatalf("the simulated backlog did not drain: %+v", sim)
	}
	ratio := sim.Drain.Seconds() / est.Drain.Seconds()
	if ratio < 0.99 || ratio > 1.01 {
		t.Fatalf("simulated drain %s vs arithmetic %s (%.4f), want within 1%%", sim.Drain, est.Drain, ratio)
	}
	if sim.PeakOldestAge < 20*time.Minute {
		t.Fatalf("peak oldest age %s, want at least the outage", sim.PeakOldestAge)
	}
	t.Logf("simulated: %+v", sim)
}

// BenchmarkBacklog is chapter 001's message-level backlog: 500/s, a 20-minute
// outage, a relay of 800/s, run until drained.
func BenchmarkBacklog(b *testing.B) {
	p := backlog.Params{Rate: 500, Outage: 20 * time.Minute, Relay: 800}
	for b.Loop() {
		sim, err := backlog.Simulate(p)
		if err != nil || !sim.Drained {
			b.Fatalf("%+v, %v", sim, err)
		}
	}
}

// TestSimulationReportsItsProgress: the simulated time grows step by step
// up to the drain, and the last report, only the last, is finished.
func TestSimulationReportsItsProgress(t *testing.T) {
	p := backlog.Params{Rate: 5, Outage: 2 * time.Minute, Relay: 8}
	var reports []time.Duration
	finished := 0
	sim, err := backlog.SimulateWith(p, func(simulated, horizon time.Duration, done bool) {
		if simulated > horizon {
			t.Fatalf("simulated %v beyond the horizon %v", simulated, horizon)
		}
		if len(reports) > 0 && simulated < reports[len(reports)-1] {
			t.Fatalf("simulated time went back from %v to %v", reports[len(reports)-1], simulated)
		}
		if finished > 0 {
			t.Fatal("a report after the finished one")
		}
		if done {
			finished++
		}
		reports = append(reports, simulated)
	})
	if err != nil || !sim.Drained {
		t.Fatalf("%+v, %v", sim, err)
	}
	if finished != 1 || len(reports) < 100 || reports[len(reports)-1] < p.Outage+sim.Drain-time.Second {
		t.Errorf("%d reports, %d finished, last %v; drained after %v", len(reports), finished, reports[len(reports)-1], p.Outage+sim.Drain)
	}
}

// TestThePlanRefusesWhatItCannotRun: a relay not faster than the
// arrivals never drains; a drain of more messages or steps than the
// simulation runs in about a minute is too long; a relay beyond MaxRelay
// is run at MaxRelay and says so; the relay's attempts outlast the outage.
func TestThePlanRefusesWhatItCannotRun(t *testing.T) {
	for _, c := range []struct {
		p    backlog.Params
		want error
	}{
		{backlog.Params{Rate: 500, Outage: 20 * time.Minute, Relay: 500}, backlog.ErrNeverDrains},
		{backlog.Params{Rate: 500, Outage: 20 * time.Minute, Relay: 400}, backlog.ErrNeverDrains},
		{backlog.Params{Rate: 1e5, Outage: time.Hour, Relay: 2e5}, backlog.ErrTooLong},       // 7.2e8 messages
		{backlog.Params{Rate: 1e-3, Outage: 1000 * time.Hour, Relay: 8}, backlog.ErrTooLong}, // 2.9e7 steps
		{backlog.Params{Rate: 1e6, Outage: time.Second, Relay: 1e12}, backlog.ErrTooLong},    // arrivals beyond MaxRelay
	} {
		pl, err := backlog.PlanFor(c.p)
		if !errors.Is(err, c.want) {
			t.Errorf("PlanFor(%+v) = %+v, %v; want %v", c.p, pl, err, c.want)
		}
		if _, err := backlog.Simulate(c.p); !errors.Is(err, c.want) {
			t.Errorf("Simulate(%+v): %v; want %v", c.p, err, c.want)
		}
	}
	pl, err := backlog.PlanFor(backlog.Params{Rate: 500, Outage: 20 * time.Minute, Relay: 1e12})
	if err != nil || !pl.Capped || pl.Rate != backlog.MaxRelay || pl.Relay.BatchSize != backlog.MaxBatch || pl.Step != 125*time.Millisecond {
		t.Errorf("a relay of 1e12/s: %+v, %v; want it run at %v/s, %d a claim every 125ms", pl, err, backlog.MaxRelay, backlog.MaxBatch)
	}
	pl, err = backlog.PlanFor(backlog.Params{Rate: 500, Outage: 20 * time.Minute, Relay: 800})
	if err != nil || pl.Capped || pl.Relay.BatchSize != 100 || pl.Step != 125*time.Millisecond || pl.Relay.MaxAttempts != 14 || !pl.Relay.DeleteOnSend {
		t.Errorf("chapter 001: %+v, %v; want the reference's batch of 100 every 125ms, 14 attempts (10 and one for every 5 minutes of the outage), DeleteOnSend", pl, err)
	}
}

// TestAFastRelayDrainsAtThePaceOfItsRetries: at a relay the simulation
// runs capped, the drain is the retries' (minutes), not the arithmetic's
// nanoseconds, and it still drains.
func TestAFastRelayDrainsAtThePaceOfItsRetries(t *testing.T) {
	sim, err := backlog.Simulate(backlog.Params{Rate: 5, Outage: 5 * time.Minute, Relay: 1e12})
	if err != nil || !sim.Drained || !sim.Plan.Capped {
		t.Fatalf("%+v, %v", sim, err)
	}
	if sim.Drain < 30*time.Second || sim.Drain > 6*time.Minute {
		t.Errorf("drained in %v, want the pace of the retries (up to 5 minutes apart)", sim.Drain)
	}
}

// TestTheSlowestOfRelayBrokerAndReceiverSetsTheDrain: chapter 001's
// arithmetic "gilt nur bei ... ausreichender Broker- und
// Empfängerkapazität": a broker taking 600/s makes the 33 min 20 s an
// hour and forty minutes, a receiver slower than the arrivals makes it
// never, and capacities above the relay's change nothing.
func TestTheSlowestOfRelayBrokerAndReceiverSetsTheDrain(t *testing.T) {
	base := backlog.Params{Rate: 500, Outage: 20 * time.Minute, Relay: 800}
	cases := []struct {
		broker, consumer float64
		drains           bool
		drain            time.Duration
		bottleneck       string
	}{
		{0, 0, true, 2000 * time.Second, "relay"},
		{600, 0, true, 6000 * time.Second, "broker"},
		{0, 450, false, 0, "receiver"},
		{900, 1000, true, 2000 * time.Second, "relay"},
		{700, 650, true, 4000 * time.Second, "receiver"},
	}
	for _, c := range cases {
		p := base
		p.Broker, p.Consumer = c.broker, c.consumer
		e, err := backlog.Compute(p)
		if err != nil {
			t.Fatal(err)
		}
		if e.Drains != c.drains || e.Drain != c.drain || e.Bottleneck != c.bottleneck {
			t.Errorf("broker %v, receiver %v: drains %v in %s by the %s, want %v in %s by the %s",
				c.broker, c.consumer, e.Drains, e.Drain, e.Bottleneck, c.drains, c.drain, c.bottleneck)
		}
	}
	if _, err := backlog.Compute(backlog.Params{Rate: 1, Outage: time.Minute, Relay: 2, Broker: -1}); err == nil {
		t.Error("a negative broker capacity was accepted")
	}
}
