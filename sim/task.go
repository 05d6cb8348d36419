package sim

import (
	"errors"
	"iter"

	"outboxlab/effect"
)

// A task is one activity of a process in progress: a use case of the
// service, a relay's step, a delivery of the consumer. It runs as a
// coroutine that stops at every effect boundary (in gate.Cross, before the
// effect), so that between any two effects of one process any other
// process may run. Only one task runs at a time, and the scheduler decides
// which, from the seed: the interleavings are exact and replay byte for byte.
type task struct {
	next func() (struct{}, bool)
	stop func()
	// did and err are the activity's result, once it finished.
	did bool
	err error
}

// begin starts activity as p's task and runs it to its first boundary. It
// reports whether the activity did anything: it is still running, or it
// finished having done something.
func (w *world) begin(p *proc, activity func() (bool, error)) bool {
	t := &task{}
	t.next, t.stop = iter.Pull(func(yield func(struct{}) bool) {
		p.yield = yield
		t.did, t.err = activity()
		p.yield = nil
	})
	p.task = t
	return w.resume(p) || t.did || errors.Is(t.err, effect.ErrCrashed)
}

// resume runs p's task to its next boundary, or to its end. It reports
// whether the task is still running.
func (w *world) resume(p *proc) bool {
	t := p.task
	if _, running := t.next(); running {
		return true
	}
	p.task = nil
	if t.err != nil && !errors.Is(t.err, effect.ErrCrashed) && w.cfg.Trace {
		w.record(Step{Process: p.name, Kind: StepError, Action: "step", Result: "error: " + t.err.Error()})
	}
	return false
}

// abandon ends every task still running, as at the end of a run: each
// returns from its boundary with effect.ErrCrashed and unwinds.
func (w *world) abandon() {
	for _, p := range w.procs {
		if p.task != nil {
			p.task.stop()
			p.task = nil
		}
	}
}
