package verify

import "syscall"

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
// its instance again: an instance that leaves for good (a scale-in).
func (f *Fleet) Retire(p *Proc) {
	f.mu.Lock()
	f.retired[p.Instance] = true
	f.mu.Unlock()
	syscall.Kill(-p.PID, syscall.SIGTERM)
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
