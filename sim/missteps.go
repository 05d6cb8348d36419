package sim

import (
	"errors"
	"fmt"
)

// Missteps are what a process did in a run that no declaration allows,
// whatever the run's outcome: a cell, a sweep's run or an exploration's
// schedule with one fails. Each entry names the process first.
type Missteps struct {
	// Unhandled are the errors a relay's step or a consumer's delivery
	// returned that were neither a crash nor a failed commit, as
	// "process: error", in order: what the process should have handled
	// itself (a broker's error, a race another relay won, a lease it took
	// over), for Relay.Run stops at a step's error.
	Unhandled []string
	// Swallowed are the crashes a process's activity did not hand back:
	// its command, step, recovery or delivery crashed at a boundary
	// (which returned effect.ErrCrashed) and went on to return nil or
	// another error, or to try another boundary, which the gate refused
	// (whatever it returned then), as "process crashed at POINT, and
	// ...". A crashed
	// process is dead: in production nothing after its crash happens.
	Swallowed []string
	// Panics are the panics of a process's activity, as "process
	// panicked in its step: value". The process died of it, as it would
	// in production, and restarted: the run went on.
	Panics []string
}

// Any reports whether there is a misstep.
func (m Missteps) Any() bool { return len(m.Unhandled)+len(m.Swallowed)+len(m.Panics) > 0 }

// ErrPanicked is wrapped by the error Run returns when the variant's code
// panicked outside an activity (building a process, NextWake, an
// operator's command): the run cannot go on, and says so instead of
// taking the caller down. A panic inside an activity is a misstep of the
// run (Missteps.Panics), not an error.
var ErrPanicked = errors.New("the variant's code panicked")

// recoverPanic turns a panic of the variant's code into an error wrapping
// ErrPanicked, and ends every process's activity: a worker whose
// coroutine saw the panic does not go back to the pool.
func (w *world) recoverPanic(err *error) {
	r := recover()
	if r == nil {
		return
	}
	for _, p := range w.procs {
		if p.worker != nil {
			p.worker.stop()
			p.worker, p.task = nil, false
		}
	}
	*err = fmt.Errorf("sim: %s: %w: %v", w.cfg.Variant.Name, ErrPanicked, r)
}
