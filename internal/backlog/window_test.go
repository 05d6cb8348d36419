package backlog

import (
	"math"
	"testing"
	"time"

	"outboxlab/domain"
)

// windowCases are backlogs small enough to simulate with every arrival
// written at once: chapter 001's rates at a hundredth and a tenth, over a
// shorter outage, chapter 004's claims, a relay barely faster than the
// arrivals, a fast one, no outage at all.
var windowCases = []Params{
	{Rate: 5, Outage: 5 * time.Minute, Relay: 8},
	{Rate: 50, Outage: time.Minute, Relay: 80},
	{Rate: 0.023, Outage: 10 * time.Minute, Relay: 1},
	{Rate: 5, Outage: time.Minute, Relay: 5.5},
	{Rate: 5, Outage: 2 * time.Minute, Relay: 1000},
	{Rate: 50, Outage: 0, Relay: 80},
}

// TestTheWindowChangesNothing: the outbox topped up to a batch of PENDING
// messages before every step publishes the same messages at the same
// times (the sink's digest), and measures the same, as the outbox with
// every arrival written when it arrives; and it holds a batch and the
// failed messages, not the backlog.
func TestTheWindowChangesNothing(t *testing.T) {
	for _, p := range windowCases {
		pl, err := PlanFor(p)
		if err != nil {
			t.Fatal(err)
		}
		full, fullStats, err := run(p, pl, math.MaxInt, nil)
		if err != nil {
			t.Fatal(err)
		}
		window, windowStats, err := run(p, pl, pl.Relay.BatchSize, nil)
		if err != nil {
			t.Fatal(err)
		}
		if window != full || windowStats.digest != fullStats.digest {
			t.Errorf("%+v: with the window %+v (digest %x), with every row written %+v (digest %x)", p, window, windowStats.digest, full, fullStats.digest)
		}
		if most := pl.Relay.BatchSize + 200; windowStats.peakRows > most {
			t.Errorf("%+v: the window held %d rows, more than a batch and the failed messages (%d)", p, windowStats.peakRows, most)
		}
		t.Logf("%+v: %d publishes; the outbox held at most %d rows with the window, %d without", p, windowStats.publishes, windowStats.peakRows, fullStats.peakRows)
	}
}

// TestATooSmallWindowIsCaught: topped up to half a batch, the relay's
// claims come out smaller than the full outbox's, and the comparison above
// sees it: it is not a comparison that cannot fail.
func TestATooSmallWindowIsCaught(t *testing.T) {
	p := windowCases[4] // a batch of 125
	pl, err := PlanFor(p)
	if err != nil {
		t.Fatal(err)
	}
	_, full, _ := run(p, pl, math.MaxInt, nil)
	_, half, _ := run(p, pl, pl.Relay.BatchSize/2, nil)
	if half.digest == full.digest {
		t.Error("half a batch publishes what the full outbox publishes: the digest does not tell windows apart")
	}
}

// TestARecordIsWhatEncodeWrites: the template the simulation fills in per
// order is byte for byte domain.Encode's record of that order.
func TestARecordIsWhatEncodeWrites(t *testing.T) {
	var a arrivals
	for _, at := range []time.Time{epoch, epoch.Add(1234567 * time.Microsecond), epoch.Add(20 * time.Minute)} {
		for _, id := range []string{"o-1", "o-0", "o-42", "o-1606500"} {
			got, err := a.record(id, at)
			if err != nil {
				t.Fatal(err)
			}
			want, err := domain.Encode(domain.OrderAccepted{OrderID: id, Sequence: 1, Total: domain.MustMoney("1.00", "EUR"), AcceptedAt: at})
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s at %s:\n got %+v\nwant %+v", id, at, got, want)
			}
		}
	}
}
