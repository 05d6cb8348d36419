package sim

import (
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"

	"outboxlab/broker"
	"outboxlab/effect"
)

// A worker runs the activities of one process, one after another: a use
// case of the service, a relay's step, a delivery of the consumer. It is a
// coroutine that stops at every effect boundary (in gate.Cross, before the
// effect), so that between any two effects of one process any other
// process may run. Only one coroutine runs at a time, and the scheduler
// decides which, from the seed: the interleavings are exact and replay
// byte for byte.
//
// A worker holds no state of the run between activities, so a worker
// whose process ended between two activities goes back to a pool and
// serves another process, in this run or the next: a coroutine is a
// goroutine, and its stack, once grown, stays grown.
type worker struct {
	next func() (struct{}, bool)
	stop func()
	// p is the process it works for; job is the activity in progress,
	// nil between activities.
	p   *proc
	job func() (bool, error)
	// did and err are the last activity's result, once it finished.
	did bool
	err error
	// incarnation is the incarnation of p the activity began in.
	incarnation int
	// panicked is what the activity panicked with, if it did.
	panicked any
	// crossedDead is the first boundary the activity tried to cross after
	// its process crashed under it ("" if none): the gate refused it, and
	// whatever the activity returns, it went on after its crash.
	crossedDead string
	// failed are the activity's failed commits that it has not tried
	// again (see retriedCommit).
	failed []failedCommit
}

// failedCommit is a commit that failed in an activity: where, and about
// which message (world.aboutMessage).
type failedCommit struct {
	at    *boundaryPoints
	about broker.Target
}

// idle are the workers between activities that no process holds: at most
// a few per core, the rest are stopped.
var idle = struct {
	sync.Mutex
	workers []*worker
}{}

// maxIdle bounds the pool.
const maxIdle = 64

// getWorker returns an idle worker for p, or a new one.
func getWorker(p *proc) *worker {
	idle.Lock()
	var wk *worker
	if n := len(idle.workers); n > 0 {
		wk, idle.workers = idle.workers[n-1], idle.workers[:n-1]
	}
	idle.Unlock()
	if wk == nil {
		wk = newWorker()
	}
	wk.p = p
	return wk
}

// putWorker returns a worker between activities to the pool.
func putWorker(wk *worker) {
	wk.p, wk.did, wk.err = nil, false, nil
	idle.Lock()
	if len(idle.workers) < maxIdle {
		idle.workers = append(idle.workers, wk)
		wk = nil
	}
	idle.Unlock()
	if wk != nil {
		wk.stop()
	}
}

// newWorker starts a coroutine. It runs a job each time it is resumed
// after the previous one finished, and ends when it is stopped.
func newWorker() *worker {
	wk := &worker{}
	wk.next, wk.stop = iter.Pull(func(yield func(struct{}) bool) {
		for {
			p := wk.p
			p.yield = yield
			wk.run()
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
		p.worker = getWorker(p)
	}
	p.worker.job = activity
	p.worker.incarnation = p.incarnation
	p.task = true
	wk := p.worker
	return w.resume(p) || wk.did || errors.Is(wk.err, effect.ErrCrashed)
}

// resume runs p's task to its next boundary, or to its end. It reports
// whether the task is still running.
func (w *world) resume(p *proc) bool {
	wk := p.worker
	prev := w.running
	w.running = p.name
	wk.next()
	w.running = prev
	if wk.job != nil {
		return true // stopped at a boundary
	}
	p.task = false
	action := "step"
	w.checkPanicked(p, wk)
	w.checkSwallowed(p, wk)
	switch {
	case p.recovering:
		// A recovery is not a step: Relay.Run steps at once after it,
		// and a recovery that did not commit leaves the relay running
		// on, its claims waiting for their leases.
		action, p.recovering = "recover", false
		p.recoverFailed = wk.err != nil
		p.steps++ // its own state may have changed (see wakeOf)
	case p.role == roleRelay:
		w.endStep(p, wk.did, wk.err)
	case p.role == roleService:
		action = "command" // its error is its answer to a client: the command is refused
	}
	switch {
	case errors.Is(wk.err, ErrCommitFailed):
		w.reported++
	case wk.err != nil && !errors.Is(wk.err, effect.ErrCrashed) && p.role != roleService:
		// A service's error is its answer to a client (an unknown
		// order, busy): the answers are checked by what was committed.
		w.unhandled = append(w.unhandled, p.name+": "+wk.err.Error())
	}
	if wk.err != nil && !errors.Is(wk.err, effect.ErrCrashed) && w.cfg.Trace {
		w.record(Event{Process: p.name, Kind: EventError, Action: action, Says: actionText(action), Result: errorResult(wk.err)})
	}
	return false
}

// settle runs p's activity in progress, if any, to its end, wherever it
// stands (a recovery that a restart began): the operator's commands
// (cleanup, replay) run on a process between two of its activities.
func (w *world) settle(p *proc) {
	for p.task && p.alive {
		w.resume(p)
	}
}

// stopWorker ends p's activity in progress, if any (it returns from its
// boundary with effect.ErrCrashed and unwinds, and its coroutine ends),
// and lets go of p's worker.
func stopWorker(p *proc) {
	switch {
	case p.worker == nil:
	case p.task:
		p.worker.stop()
	default:
		putWorker(p.worker)
	}
	p.worker, p.task = nil, false
}

// abandon ends every process's activity, as at the end of a run.
func (w *world) abandon() {
	for _, p := range w.procs {
		stopWorker(p)
	}
}

// checkSwallowed runs when p's activity ended: if p crashed during it (at
// a boundary, which returned effect.ErrCrashed) and the activity returned
// anything but that error, or returned it only after it tried another
// boundary as a dead process (the gate refused it: worker.crossedDead),
// it went on as if alive. That is recorded (see
// Result.Swallowed), and the activity's result becomes the crash it
// should have returned: a dead process does nothing more in production,
// so nothing it did after its crash is judged as its own (a claim it
// "held" when it ended, an answer to a client).
func (w *world) checkSwallowed(p *proc, wk *worker) {
	alive := p.alive && p.incarnation == wk.incarnation
	if alive || errors.Is(wk.err, effect.ErrCrashed) && wk.crossedDead == "" {
		return
	}
	activity := map[string]string{roleService: "command", roleRelay: "step", roleConsumer: "delivery"}[p.role]
	if p.recovering {
		activity = "recovery"
	}
	went := "returned no error instead of effect.ErrCrashed"
	switch {
	case wk.crossedDead != "":
		// It returned the crash at last, but only after it tried an
		// effect as a dead process (the gate refused it).
		went = "tried " + wk.crossedDead + " as a dead process instead of returning effect.ErrCrashed"
	case wk.err != nil:
		went = "returned another error (" + wk.err.Error() + ") instead of effect.ErrCrashed"
	}
	if len(w.swallowed) == maxMissteps {
		wk.err = effect.ErrCrashed
		return
	}
	w.swallowed = append(w.swallowed, fmt.Sprintf("%s crashed at %s, and its %s went on and %s",
		p.name, p.crashedAt, activity, went))
	wk.err = effect.ErrCrashed
}

// maxMissteps bounds the swallowed crashes and panics a run records: the
// first ones say what a learner needs.
const maxMissteps = 10

// CrashLoopCap bounds how long a process that panics again and again
// stays down before its next restart, as a supervisor's crash-loop
// backoff does (Kubernetes: five minutes).
const CrashLoopCap = 5 * time.Minute

// run runs the worker's job and keeps its result; a panic of the job is
// kept too (see checkPanicked), so that it cannot unwind the simulator.
func (wk *worker) run() {
	wk.panicked, wk.crossedDead, wk.failed = nil, "", wk.failed[:0]
	defer func() {
		if r := recover(); r != nil {
			wk.did, wk.err, wk.panicked = true, nil, r
		}
	}()
	wk.did, wk.err = wk.job()
}

// checkPanicked runs when p's activity ended: if it panicked, the process
// dies of it where it stood, as it would in production (its open
// transactions aborted, its deliveries handed back, a restart later), and
// the panic is recorded (see Missteps.Panics). The activity's result is
// the crash.
//
// A process that panics again and again is restarted later and later, as
// a supervisor backs off a crash loop: RestartDelay, doubled per panic
// of an incarnation that lived less than CrashLoopCap, up to
// CrashLoopCap. A run of a variant that panics at every delivery ends in
// a few hundred restarts, not thousands. The first panics are recorded
// (maxMissteps), not all of them.
func (w *world) checkPanicked(p *proc, wk *worker) {
	if wk.panicked == nil {
		return
	}
	activity := map[string]string{roleService: "command", roleRelay: "step", roleConsumer: "delivery"}[p.role]
	if p.recovering {
		activity = "recovery"
	}
	if len(w.panics) < maxMissteps {
		w.panics = append(w.panics, fmt.Sprintf("%s panicked in its %s: %v", p.name, activity, wk.panicked))
	}
	if p.alive && p.incarnation == wk.incarnation {
		if w.clock.Now().Sub(p.started) >= CrashLoopCap {
			p.panics = 0 // it ran long enough: not a loop
		}
		p.panics++
		down := w.cfg.RestartDelay << min(p.panics-1, 16)
		w.crash(p, "panic", min(down, CrashLoopCap))
	}
	wk.err, wk.panicked = effect.ErrCrashed, nil
}
