// Package effecttest has what the components' tests need to stand in for
// the simulator: a gate that crashes at one crash point, and a manual clock;
// and a gate that hides write conflicts, to build a broken relay.
package effecttest

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/effect"
	"outboxlab/store"
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

// HidesConflicts wraps a gate as a database driver whose write conflict
// is an error of its own (a serialization failure that is not
// store.ErrConflict): a relay behind it no longer recognises a race
// another relay won. The lab's tests use it to build that broken relay.
type HidesConflicts struct{ effect.Gate }

// Cross implements effect.Gate.
func (g HidesConflicts) Cross(b effect.Boundary, do func() error) error {
	err := g.Gate.Cross(b, do)
	if errors.Is(err, store.ErrConflict) {
		return fmt.Errorf("driver: serialization failure (%v)", err.Error())
	}
	return err
}
