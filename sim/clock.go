package sim

import "time"

// Epoch is the virtual time at which every run starts.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Clock is the virtual clock. Only the simulator moves it.
type Clock struct{ now time.Time }

// NewClock returns a clock standing at Epoch.
func NewClock() *Clock { return &Clock{now: Epoch} }

// Now returns the current virtual time.
func (c *Clock) Now() time.Time { return c.now }

// Set moves the clock to t; it never moves backwards.
func (c *Clock) Set(t time.Time) {
	if t.After(c.now) {
		c.now = t
	}
}

// skewedClock is a process's own clock when it runs ahead (skew > 0) or
// behind (skew < 0) of the true time.
type skewedClock struct {
	c    *Clock
	skew time.Duration
}

func (s skewedClock) Now() time.Time { return s.c.now.Add(s.skew) }

// Since returns the virtual time elapsed since Epoch.
func (c *Clock) Since() time.Duration { return c.now.Sub(Epoch) }
