package outbox

import (
	"context"
	"fmt"
	"time"
)

// WallClock is the production clock. The simulator never uses it.
type WallClock struct{}

// Now returns the wall-clock time.
func (WallClock) Now() time.Time { return time.Now() }

// Run is the relay's production loop: recover what this instance held,
// then step, pausing BusyPoll after a step that did work and IdlePoll after
// one that found nothing, or until the relay's pause after failed sends
// ends if that is later, until ctx is cancelled. It returns ctx's error on
// cancellation, or the first error a step cannot handle itself (broker
// errors are handled inside Step: they make messages FAILED, not the loop).
func (r *Relay) Run(ctx context.Context) error {
	if _, err := r.Recover(); err != nil {
		return err
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
		rep, err := r.Step()
		if err != nil {
			return fmt.Errorf("outbox: run %s: %w", r.cfg.Owner, err)
		}
		pause := r.cfg.IdlePoll
		if rep.Did() {
			pause = r.cfg.BusyPoll
		}
		if rest := rep.PausedUntil.Sub(r.Clock.Now()); rest > pause {
			pause = rest
		}
		timer.Reset(pause)
	}
}
