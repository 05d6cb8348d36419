package metrics_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/effect/effecttest"
	"outboxlab/internal/metrics"
	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/store"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// TestSeriesAgreesWithTheRelaysOwnMetrics: the dashboard rebuilt from the
// commit log shows what Relay.Metrics shows on the live database at the
// same times, through an outage, its retries and the drain after it.
func TestSeriesAgreesWithTheRelaysOwnMetrics(t *testing.T) {
	clock := &effecttest.Clock{T: t0}
	db := store.New("orders")
	db.KeepLog()
	db.SetClock(clock.Now)
	if err := outbox.Install(db); err != nil {
		t.Fatal(err)
	}
	b := broker.New(clock)
	b.Outage(t0, t0.Add(40*time.Second))
	r, err := outbox.NewRelay(outbox.DefaultConfig("relay-1"), outbox.Deps{DB: db, Broker: b, Gate: effect.Direct{}, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	live := map[time.Duration]outbox.Metrics{}
	for s := time.Duration(0); s <= 90*time.Second; s += time.Second {
		if s%(10*time.Second) == 0 && s < 50*time.Second {
			tx := db.Begin("service")
			id := "o-" + s.String()
			if _, err := outbox.Append(tx, "e-"+id, domain.OrderAccepted{OrderID: id, Sequence: 1, Total: domain.MustMoney("1.00", "EUR")}, clock.Now()); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := r.Step(); err != nil {
			t.Fatal(err)
		}
		if s%(15*time.Second) == 0 {
			live[s] = r.Metrics()
		}
		clock.Advance(time.Second)
	}
	samples := metrics.Series(db.Log(0), nil, t0, 90*time.Second, 15*time.Second, nil)
	if len(samples) != 7 {
		t.Fatalf("%d samples from 0 to 90 s every 15 s, want 7", len(samples))
	}
	sawFailed := false
	for _, s := range samples {
		want := live[s.At]
		if diff := cmp.Diff(want, s.Outbox); diff != "" {
			t.Errorf("at %s the series differs from Relay.Metrics (-live +series):\n%s", s.At, diff)
		}
		sawFailed = sawFailed || s.Outbox.ByStatus[outbox.Failed] > 0
	}
	if !sawFailed {
		t.Error("no sample saw a FAILED message: the outage tested nothing")
	}
}

// TestTheAlertFiresOnAStalledRelayAndNotOnAHealthyOne: the alert on the
// oldest unsent message fires while the relay of relay-stalled is down,
// and never in happy-path; the dead-letter alert fires in
// dead-letter-replay, whose message is dead-lettered, and not in
// relay-stalled.
func TestTheAlertFiresOnAStalledRelayAndNotOnAHealthyOne(t *testing.T) {
	cases := []struct {
		scenario string
		rule     string
		fires    bool
	}{
		{"relay-stalled", "oldest-unsent", true},
		{"relay-stalled", "dead-letter", false},
		{"happy-path", "oldest-unsent", false},
		{"dead-letter-replay", "dead-letter", true},
	}
	for _, c := range cases {
		sc, err := scenarios.FindScenario(c.scenario)
		if err != nil {
			t.Fatal(err)
		}
		v, err := scenarios.FindVariant(sc.Variant + map[bool]string{true: "", false: "outbox"}[sc.Variant != ""])
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(sc.Configure(v, sc.Seed))
		if err != nil {
			t.Fatal(err)
		}
		rules := []metrics.Rule{metrics.OldestUnsent(time.Minute), metrics.DeadLetters()}
		fired := false
		for _, s := range metrics.Series(res.OrderLog, res.BillingLog, sim.Epoch, res.WorkEnded, 10*time.Second, rules) {
			for _, a := range s.Alerts {
				fired = fired || a.Name == c.rule
			}
		}
		if fired != c.fires {
			t.Errorf("%s: alert %s fired: %v, want %v", c.scenario, c.rule, fired, c.fires)
		}
	}
}
