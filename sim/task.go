package sim

import (
	"errors"
	"iter"

	"outboxlab/effect"
)

// A worker runs the activities of one incarnation of a process, one after
// another: a use case of the service, a relay's step, a delivery of the
// consumer. It is a coroutine that stops at every effect boundary (in
// gate.Cross, before the effect), so that between any two effects of one
// process any other process may run. Only one coroutine runs at a time,
// and the scheduler decides which, from the seed: the interleavings are
// exact and replay byte for byte. One coroutine serves every activity of
// an incarnation, so that its stack, once grown, stays grown.
type worker struct {
	next func() (struct{}, bool)
	stop func()
	// job is the activity in progress; nil between activities.
	job func() (bool, error)
	// did and err are the last activity's result, once it finished.
	did bool
	err error
}

// newWorker starts p's coroutine. It runs a job each time it is resumed
// after the previous one finished, and ends when it is stopped.
func newWorker(p *proc) *worker {
	wk := &worker{}
	wk.next, wk.stop = iter.Pull(func(yield func(struct{}) bool) {
		for {
			p.yield = yield
			wk.did, wk.err = wk.job()
			p.yield = nil
			wk.job = nil
			if !yield(struct{}{}) { // finished: wait for the next job
				return
			}
		}
	})
	return wk
}

// begin starts activity as p's task and runs it to its first boundary. It
// reports whether the activity did anything: it is still running, or it
// finished having done something.
func (w *world) begin(p *proc, activity func() (bool, error)) bool {
	if p.worker == nil {
		p.worker = newWorker(p)
	}
	p.worker.job = activity
	p.task = true
	wk := p.worker
	return w.resume(p) || wk.did || errors.Is(wk.err, effect.ErrCrashed)
}

// resume runs p's task to its next boundary, or to its end. It reports
// whether the task is still running.
func (w *world) resume(p *proc) bool {
	wk := p.worker
	wk.next()
	if wk.job != nil {
		return true // stopped at a boundary
	}
	p.task = false
	if wk.err != nil && !errors.Is(wk.err, effect.ErrCrashed) && w.cfg.Trace {
		w.record(Event{Process: p.name, Kind: EventError, Action: "step", Result: "error: " + wk.err.Error()})
	}
	return false
}

// stopWorker ends p's coroutine: a task it was in the middle of returns
// from its boundary with effect.ErrCrashed and unwinds.
func stopWorker(p *proc) {
	if p.worker != nil {
		p.worker.stop()
		p.worker = nil
	}
	p.task = false
}

// abandon ends every coroutine, as at the end of a run.
func (w *world) abandon() {
	for _, p := range w.procs {
		stopWorker(p)
	}
}
