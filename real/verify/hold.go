package verify

import (
	"sync"
	"time"
)

// A relay that loses a fenced mark must lose that row alone. One that
// then hands back every IN_FLIGHT row takes away the claims of the
// instances that are sending theirs, and another instance sends those
// rows again: rule 4's breach, which shows only when another instance
// holds a live claim as the stalled one resumes. Commands keep coming
// while a fault is in progress (play), and the stall holds the next
// produce request of another instance across the resume: its sender
// holds its claim, under a live lease, while the stalled instance goes on.

// hold is a produce request of another instance held across a resume.
type hold struct {
	except  *Proc         // the stalled process: its requests go on
	held    chan struct{} // closed once a request is held
	release chan struct{} // closed when the held request goes on
	taken   bool
	once    sync.Once
}

// holdWait is how long a stall waits, before it resumes its process, for
// a request of another instance to hold.
const holdWait = time.Second

// stallAcross stops p's sender past its lease; as it resumes, the next
// produce request of another instance is held for half a lease, so that
// its claim is live while the stalled instance goes on.
func (d *driver) stallAcross(p *Produce) {
	d.fleet.Stop(p.Sender)
	at := d.tl.Since()
	d.tl.Add("harness", 0, "SIGSTOP %s for %s (its lease: %s), holding produce #%d", p.Sender.Label(), d.lease+time.Second, d.lease, p.N)
	time.Sleep(d.lease + time.Second)
	h := &hold{except: p.Sender, held: make(chan struct{}), release: make(chan struct{})}
	d.active.Add(1)
	d.mu.Lock()
	d.hold = h
	d.mu.Unlock()
	select {
	case <-h.held:
	case <-time.After(holdWait):
		d.tl.Add("harness", 0, "no produce of another instance within %s to hold across the resume", holdWait)
	}
	d.fleet.Cont(p.Sender)
	d.stopped(p.Sender, at, d.tl.Since())
	time.AfterFunc(d.lease/2, func() {
		d.mu.Lock()
		d.hold = nil
		d.mu.Unlock()
		h.once.Do(func() { close(h.release) })
		d.active.Add(-1)
	})
}

// holdIfArmed holds q, a request that has just arrived, if a stall's
// resume waits for one of another instance.
func (d *driver) holdIfArmed(q *Produce) {
	d.mu.Lock()
	h := d.hold
	if h == nil || h.taken || q.Sender == nil || q.Sender.Instance == h.except.Instance {
		d.mu.Unlock()
		return
	}
	h.taken = true
	d.mu.Unlock()
	d.tl.Add("harness", 0, "produce #%d of %s held while %s resumes: its claim stays live (for %s at most)", q.N, q.Sender.Label(), h.except.Label(), d.lease/2)
	close(h.held)
	<-h.release
	d.tl.Add("harness", 0, "produce #%d of %s goes on", q.N, q.Sender.Label())
}
