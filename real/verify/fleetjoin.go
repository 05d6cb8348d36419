package verify

import (
	"syscall"
	"time"
)

// Add starts one more instance, name, as StartFleet started the others:
// an instance that joins the round while it runs.
func (f *Fleet) Add(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopping {
		return
	}
	f.wg.Add(1)
	go f.supervise(name)
}

// Terminate sends SIGTERM to p's process group: the process ends as it
// would when its host shuts down, and the fleet starts its instance again.
func (f *Fleet) Terminate(p *Proc) { syscall.Kill(-p.PID, syscall.SIGTERM) }

// Retire sends SIGTERM to p's process group, and the fleet does not start
// its instance again: an instance that leaves for good (a scale-in). It
// waits until p has ended; one still running grace after SIGTERM is
// killed, and has broken rule 8 (IgnoredSIGTERM), as at the round's end.
func (f *Fleet) Retire(p *Proc, grace time.Duration) {
	f.mu.Lock()
	f.retired[p.Instance] = true
	f.mu.Unlock()
	syscall.Kill(-p.PID, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		f.tl.Add("harness", 0, "%s did not end within %s of SIGTERM: SIGKILL", p.Label(), grace)
		syscall.Kill(-p.PID, syscall.SIGKILL)
		<-p.done
		f.ignoredSIGTERM(p, grace)
	}
}

// ByPort returns the live process that holds a TCP socket with the local
// port port (a connection to the database or the broker), or nil.
func (f *Fleet) ByPort(port int) *Proc {
	for _, p := range f.Live() {
		for _, q := range f.Ports(p) {
			if q == port {
				return p
			}
		}
	}
	return nil
}
