package backlog

import (
	"errors"
	"fmt"
	"math"
	"time"

	"outboxlab/lang"
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
	// Broker and Consumer are how many messages per second the broker
	// accepts and the receiver applies; 0 means more than the relay sends.
	// Chapter 001's arithmetic holds "nur bei stabilen Raten und
	// ausreichender Broker- und Empfängerkapazität": the slowest of relay,
	// broker and receiver sets the drain.
	Broker, Consumer float64
}

// Capacity returns the rate the backlog drains at, the slowest of relay,
// broker and receiver, and which one that is ("relay", "broker",
// "receiver").
func (p Params) Capacity() (float64, string) {
	c, by := p.Relay, "relay"
	if p.Broker > 0 && p.Broker < c {
		c, by = p.Broker, "broker"
	}
	if p.Consumer > 0 && p.Consumer < c {
		c, by = p.Consumer, "receiver"
	}
	return c, by
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
	for _, c := range []struct {
		name string
		v    float64
	}{{"broker", p.Broker}, {"consumer", p.Consumer}} {
		if c.v < 0 || math.IsInf(c.v, 0) || math.IsNaN(c.v) {
			errs = append(errs, fmt.Errorf("%s %v: want a number of messages per second > 0, or 0 for enough", c.name, c.v))
		}
	}
	if p.Outage < 0 {
		errs = append(errs, fmt.Errorf("outage %s: want a duration >= 0", p.Outage))
	}
	if err := p.fits(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// MaxCount is the most messages the arithmetic counts: the backlog R·D
// and the SENT rows a day without cleanup (R·86400) are whole numbers up
// to it; beyond it they overflow what a count holds.
const MaxCount = 1e18

// fits refuses a rate whose counts overflow, naming the largest rate that
// fits with this outage.
func (p Params) fits() error {
	seconds := max(p.Outage.Seconds(), 24*time.Hour.Seconds()) // the backlog, or a day's SENT rows
	if !(p.Rate > 0) || p.Rate*seconds <= MaxCount {
		return nil
	}
	largest := MaxCount / seconds
	unit := math.Pow10(int(math.Floor(math.Log10(largest))) - 5) // six significant digits, rounded down: it fits
	return lang.Errorf(lang.Text{
		EN: "rate %s: counts beyond %.0e messages (R·D, and R a day without cleanup); the largest rate that fits with a %s outage is %s events/s",
		DE: "Rate %s: Zählungen über %.0e Nachrichten (R·D und R am Tag ohne Bereinigung); die größte Rate, die bei einem Ausfall von %s passt, ist %s Ereignisse/s",
	}, lang.Decimal(p.Rate, 6), MaxCount, lang.Duration(p.Outage), lang.Decimal(math.Floor(largest/unit)*unit, 6))
}

// Estimate is the arithmetic of chapter 001.
type Estimate struct {
	// Backlog is R·D, the messages waiting when the broker comes back.
	Backlog float64
	// Drains is false when P ≤ R: the backlog never shrinks.
	Drains bool
	// Drain is Backlog / (C − R), when Drains, where C is the slowest of
	// relay, broker and receiver (P alone when the others keep up).
	Drain time.Duration
	// Capacity is C, and Bottleneck says whose it is: "relay", "broker"
	// or "receiver".
	Capacity   float64
	Bottleneck string
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
	e.Capacity, e.Bottleneck = p.Capacity()
	if e.Capacity > p.Rate {
		seconds := e.Backlog / (e.Capacity - p.Rate)
		if seconds > MaxDrain.Seconds() {
			return Estimate{}, fmt.Errorf("%s %v/s is only %.3g/s faster than the arrivals (%v/s): the backlog of %.0f would take %.3g years to drain; the arithmetic answers up to %d years",
				e.Bottleneck, e.Capacity, e.Capacity-p.Rate, p.Rate, e.Backlog, seconds/(365*24*3600), int(MaxDrain.Hours()/24/365))
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
