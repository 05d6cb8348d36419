package sqlitelab

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"outboxlab/outbox"
)

// stalling is the parent's part of a stall a process announced ("at
// relay.before-send #2": the run's second stall): wait until the kernel
// shows it stopped, let it stay so for the stall's time, take the broker
// down if the stall says so, and resume it with SIGCONT.
func (r *run) stalling(name string, pid int, said string) {
	point, number, _ := strings.Cut(said, " #")
	i, err := strconv.Atoi(number)
	if err != nil || i < 1 || i > len(r.cfg.Stalls) || r.cfg.Stalls[i-1].Point != point {
		r.fail(fmt.Errorf("sqlitelab: %s (pid %d) stalled at %q, which the run did not plan", name, pid, said))
		return
	}
	s := r.cfg.Stalls[i-1]
	s.Process = name
	r.mu.Lock()
	r.stallsFired++
	r.stallsPending++
	f := firedStall{process: name, pid: pid}
	if p := r.procs[name]; p != nil && p.pid == pid {
		p.frozen = true
		f.incarnation = p.incarnation
	}
	r.fired[i] = f
	if ch := r.stalled[name]; ch != nil {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	r.mu.Unlock()
	go r.resume(i, s, pid)
}

// firedStall is a stall that happened: the process that took it, and
// whether the stall ended by a kill.
type firedStall struct {
	process     string
	pid         int
	incarnation int
	killed      bool
}

// orderLimit bounds how long a stall waits for the other stall it is
// ordered after (Stall.After, Stall.UntilRestarted): far longer than a
// claim or a restart takes on a loaded machine; past it the run goes on
// and says so in its timeline.
const orderLimit = 10 * time.Second

// resume sends SIGCONT to stall number i's stalled process once its time
// is up (or SIGKILL, for a stall that ends so).
func (r *run) resume(i int, s Stall, pid int) {
	defer func() {
		r.mu.Lock()
		r.stallsPending--
		r.mu.Unlock()
	}()
	if !waitUntil(func() bool { return stopped(pid) }, 5*time.Second) {
		r.fail(fmt.Errorf("sqlitelab: %s (pid %d) announced its stall at %s and did not stop", s.Process, pid, s.Point))
		return
	}
	// A row that needs two relays frozen at once orders its stalls by
	// what the processes report; with one relay the other stall never
	// comes.
	if s.After > 0 && r.cfg.Relays > 1 {
		if !waitUntil(func() bool { return r.hasFired(s.After) }, orderLimit) {
			r.say("parent", os.Getpid(), fmt.Sprintf("stall #%d did not come within %s; %s's stall runs on", s.After, orderLimit, s.Process))
		}
	}
	until, limit := r.orderedEnd(s)
	time.Sleep(s.For)
	if until != nil && !waitUntil(until, limit) {
		r.say("parent", os.Getpid(), fmt.Sprintf("what %s's stall waits for did not happen within %s; it resumes", s.Process, limit))
	}
	if s.UntilRestarted > 0 && r.hasFired(s.UntilRestarted) {
		if !waitUntil(func() bool { return r.restartedAfter(s.UntilRestarted) }, orderLimit) {
			r.say("parent", os.Getpid(), fmt.Sprintf("the process of stall #%d was not ready again within %s; %s resumes", s.UntilRestarted, orderLimit, s.Process))
		}
	}
	if s.Outage {
		if err := r.setOutage(true); err != nil {
			r.fail(err)
			return
		}
		r.say("parent", os.Getpid(), "broker down")
	}
	r.mu.Lock()
	if p := r.procs[s.Process]; p != nil && p.pid == pid {
		p.frozen = false
	}
	resumedAt := len(r.timeline)
	r.mu.Unlock()
	if s.Kill {
		r.mu.Lock()
		f := r.fired[i]
		f.killed = true
		r.fired[i] = f
		r.mu.Unlock()
		syscall.Kill(pid, syscall.SIGKILL)
		r.say("parent", os.Getpid(), fmt.Sprintf("SIGKILL %s (pid %d), frozen for %s", s.Process, pid, s.For))
		return
	}
	syscall.Kill(pid, syscall.SIGCONT)
	r.say("parent", os.Getpid(), fmt.Sprintf("SIGCONT %s (pid %d) after %s", s.Process, pid, s.For))
	if s.Outage {
		waitUntil(func() bool { return r.saidSince(s.Process, "failed", resumedAt) }, 2*time.Second)
		if err := r.setOutage(false); err != nil {
			r.fail(err)
			return
		}
		r.say("parent", os.Getpid(), "broker up")
	}
	if strings.HasPrefix(s.Process, "service") {
		return // the workload waits for its answer
	}
	// The stall is over once the process finished the step it froze in.
	if !waitUntil(func() bool { return r.saidSince(s.Process, idleWord, resumedAt) || !r.alive(s.Process, pid) }, 20*time.Second) {
		r.fail(fmt.Errorf("sqlitelab: %s (pid %d) resumed from its stall and did not finish its step within 20 s", s.Process, pid))
	}
}

// publishWait bounds how long a stall waits for a later commit to be
// published (Stall.UntilPublished): a relay that rightly waits for the
// frozen transaction (offset-by-horizon) publishes nothing meanwhile.
const publishWait = 2 * time.Second

// orderedEnd returns what stall s must see before it ends, read when its
// process froze (see Stall.UntilTakenOver, Stall.UntilPublished), and
// how long it waits for it; nil for nothing.
func (r *run) orderedEnd(s Stall) (func() bool, time.Duration) {
	switch {
	case s.UntilTakenOver && r.cfg.Relays > 1: // with one relay nobody takes over
		held, err := r.frozenClaims(s.Process)
		if err != nil {
			r.fail(err)
			return nil, 0
		}
		return func() bool { return r.takenOver(s.Process, held) }, orderLimit
	case s.UntilPublished:
		before, err := r.published()
		if err != nil {
			r.fail(err)
			return nil, 0
		}
		return func() bool { n, err := r.published(); return err != nil || n > before }, publishWait
	}
	return nil, 0
}

// frozenClaims returns the ids of the messages process holds IN_FLIGHT.
func (r *run) frozenClaims(process string) (map[string]bool, error) {
	msgs, err := r.unsentMessages()
	held := map[string]bool{}
	for _, m := range msgs {
		if m.Status == outbox.InFlight && m.LeaseOwner == process {
			held[m.ID] = true
		}
	}
	return held, err
}

// takenOver reports whether no message of held waits to be taken over
// from process: each is SENT, a dead letter, or still process's own
// under a lease that has not run out.
func (r *run) takenOver(process string, held map[string]bool) bool {
	msgs, err := r.unsentMessages()
	if err != nil {
		r.fail(err)
		return true
	}
	now := time.Now()
	for _, m := range msgs {
		own := m.Status == outbox.InFlight && m.LeaseOwner == process && now.Before(m.LeaseUntil)
		if held[m.ID] && m.Status != outbox.DeadLetter && !own {
			return false
		}
	}
	return true
}

// unsentMessages reads the order database's messages not SENT.
func (r *run) unsentMessages() ([]outbox.Message, error) {
	db, err := parentOrders(r.cfg.Dir, r.cfg.Postgres)
	if err != nil {
		return nil, err
	}
	defer db.done()
	return scanMessages(db.DB, `SELECT body FROM outbox WHERE status <> 'SENT'`)
}

// published counts the messages the broker stored.
func (r *run) published() (int, error) {
	brk, err := open(r.cfg.Dir, BrokerFile)
	if err != nil {
		return 0, err
	}
	defer brk.Close()
	var n int
	if err := brk.QueryRow(`SELECT COUNT(*) FROM log`).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlitelab: %w", err)
	}
	return n, nil
}

// hasFired reports whether stall number i happened.
func (r *run) hasFired(i int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.fired[i]
	return ok
}

// restartedAfter reports whether stall number i ended by a kill and its
// process's successor said it is ready.
func (r *run) restartedAfter(i int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, ok := r.fired[i]
	if !ok || !f.killed {
		return false
	}
	p := r.procs[f.process]
	return p != nil && p.incarnation > f.incarnation && p.ready
}

// alive reports whether pid is still the live process under name.
func (r *run) alive(name string, pid int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.procs[name]
	return p != nil && p.pid == pid && p.alive
}

// saidSince reports whether the process said a line containing word
// among the timeline's lines from index from on.
func (r *run) saidSince(name, word string, from int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.timeline[from:] {
		if f := strings.Fields(l); len(f) > 1 && f[1] == name && strings.Contains(l, word) {
			return true
		}
	}
	return false
}

// setOutage takes the broker down or brings it back.
func (r *run) setOutage(down bool) error {
	control, err := open(r.cfg.Dir, controlFile)
	if err != nil {
		return err
	}
	defer control.Close()
	if _, err := control.Exec(`UPDATE outage SET down = ?`, down); err != nil {
		return fmt.Errorf("sqlitelab: outage: %w", err)
	}
	return nil
}

// stopped reports whether the kernel shows the process stopped (or gone).
func stopped(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(stat), ')')
	f := strings.Fields(string(stat[i+1:]))
	return len(f) > 0 && (f[0] == "T" || f[0] == "Z" || f[0] == "X")
}

// waitUntil polls done every millisecond until it holds or the time is up.
func waitUntil(done func() bool, limit time.Duration) bool {
	for deadline := time.Now().Add(limit); ; time.Sleep(time.Millisecond) {
		if done() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}
