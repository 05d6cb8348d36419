// Package effecttest has what the components' tests need to stand in for
// the simulator: a gate that crashes at one crash point, and a manual clock.
package effecttest

import (
	"time"

	"outboxlab/effect"
)

// CrashGate performs every effect, except that it crashes the process once,
// at the crash point At (e.g. "relay.after-send"); after that, like a dead
// process, it performs nothing and returns effect.ErrCrashed.
type CrashGate struct {
	At      string
	Crashed bool
}

// Cross implements effect.Gate.
func (g *CrashGate) Cross(b effect.Boundary, do func() error) error {
	if g.Crashed {
		return effect.ErrCrashed
	}
	if b.Before() == g.At {
		g.Crashed = true
		return effect.ErrCrashed
	}
	if err := do(); err != nil {
		return err
	}
	if b.After() == g.At {
		g.Crashed = true
		return effect.ErrCrashed
	}
	return nil
}

// Clock is a clock the test moves by hand.
type Clock struct{ T time.Time }

// Now returns the clock's time.
func (c *Clock) Now() time.Time { return c.T }

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) { c.T = c.T.Add(d) }
