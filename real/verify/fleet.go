package verify

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"outboxlab/real/cleanup"
)

// Proc is one process of a relay instance.
type Proc struct {
	Instance string // relay-1
	Gen      int    // 1 for the instance's first process, 2 after one restart, …
	// PID is the process group's leader: the /bin/sh -c that runs the
	// relay's command (OwnPID is the relay's own).
	PID     int
	own     atomic.Int64
	started time.Time
	// Started and Ended are when the process started and was reaped,
	// since the round started (Ended 0 while it runs).
	Started, Ended time.Duration
	cmd            *exec.Cmd
	done           chan struct{} // closed when the process has exited and its output is read
}

// OwnPID returns the relay's own process id: the shell's child that runs
// the relay's command, not the shell (/bin/sh -c, which dash does not
// replace by the command), once the shell started it; the leader's while
// the group has no other member, or when the leader is no shell (bash
// replaces itself by a simple command).
func (p *Proc) OwnPID() int {
	if pid := p.own.Load(); pid != 0 {
		return int(pid)
	}
	if p.cmd == nil || !isShell(p.PID) { // a process the fleet did not start (a test's) is its own
		p.own.Store(int64(p.PID))
		return p.PID
	}
	members := group(p.PID)
	slices.Sort(members)
	for _, pid := range members {
		if pid != p.PID {
			p.own.Store(int64(pid))
			return pid
		}
	}
	return p.PID
}

// isShell reports whether pid runs a shell: /bin/sh, dash or bash.
func isShell(pid int) bool {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return false
	}
	switch filepath.Base(exe) {
	case "sh", "dash", "bash", "busybox":
		return true
	}
	return false
}

// Label names the process in the timeline and in verdicts: "relay-1/2".
func (p *Proc) Label() string { return fmt.Sprintf("%s/%d", p.Instance, p.Gen) }

// ErrCannotRun is wrapped by Fleet.Broken when the command (a relay's, a
// consumer's) cannot be run at all (the shell's exit status 126 or 127):
// bad usage, not a verdict.
var ErrCannotRun = errors.New("the command cannot be run")

var errRoundOver = errors.New("the round is over")

// Fleet runs the instances of a relay as process groups of their own
// ("sh -c CMD"), each with the contract's environment, restarts a process
// that ended, and signals whole groups: a kill or a stop reaches every
// process of the instance.
type Fleet struct {
	command string
	env     []string
	tl      *Timeline
	// instanceVar names the variable that tells a process its instance.
	instanceVar string

	mu       sync.Mutex
	current  map[string]*Proc
	all      []*Proc
	killed   map[int]bool    // processes the harness killed
	retired  map[string]bool // instances that end for good (Retire)
	faulted  map[*Proc]bool
	stopping bool
	broken   error
	breaches []Breach
	wg       sync.WaitGroup
}

// StartFleet starts one process for each instance name, each told its
// name in OUTBOX_INSTANCE_ID.
func StartFleet(command string, names []string, env []string, tl *Timeline) *Fleet {
	return startFleet(command, EnvInstance, names, env, tl)
}

func startFleet(command, instanceVar string, names []string, env []string, tl *Timeline) *Fleet {
	f := &Fleet{command: command, env: env, tl: tl, instanceVar: instanceVar, current: map[string]*Proc{}, killed: map[int]bool{}, retired: map[string]bool{}, faulted: map[*Proc]bool{}}
	for _, name := range names {
		f.wg.Add(1)
		go f.supervise(name)
	}
	return f
}

// supervise keeps an instance running: a process the harness killed is
// restarted at once. One that ended by itself when no fault of the round
// had acted on it ends the round (EndedByItself): a relay that dies at
// once (a missing module, a bad flag) or of its own accord breaks the
// contract, and the rest of the round would judge nothing but its
// absence. One
// that ended by itself after a fault acted on it (its connection cut,
// its produce failed: a relay may choose to exit and be restarted) is
// restarted after half a second; three such ends within two seconds of
// their start in a row break the round (Broken).
func (f *Fleet) supervise(name string) {
	defer f.wg.Done()
	quick := 0
	for gen := 1; ; gen++ {
		p, err := f.start(name, gen)
		if errors.Is(err, errRoundOver) {
			return // it ended by itself as the round ended: nothing to restart
		}
		if err != nil {
			f.fail(fmt.Errorf("%w: %v", ErrCannotRun, err))
			return
		}
		<-p.done
		f.mu.Lock()
		stopping, killed, faulted := f.stopping || f.retired[name], f.killed[p.PID], f.faulted[p]
		f.mu.Unlock()
		how := exitText(p.cmd.ProcessState)
		switch {
		case stopping:
			f.tl.Add(p.Label(), p.OwnPID(), "ended (%s)", how)
			return
		case killed:
			f.tl.Add("harness", 0, "%s is dead (%s); restarting %s", p.Label(), how, name)
			quick = 0
			continue
		case p.cmd.ProcessState.ExitCode() == 126 || p.cmd.ProcessState.ExitCode() == 127:
			f.fail(fmt.Errorf("%w: %q: %s; its last words: %s", ErrCannotRun, f.command, how, f.lastWords(p)))
			return
		case !faulted:
			f.tl.Add(p.Label(), p.OwnPID(), "ended by itself (%s): the round ends", how)
			f.endedByItself(p, how)
			return
		}
		f.tl.Add(p.Label(), p.OwnPID(), "ended by itself (%s) after a fault; restarting in 500 ms", how)
		if time.Since(p.started) < 2*time.Second {
			quick++
		} else {
			quick = 0
		}
		if quick == 3 {
			f.fail(fmt.Errorf("%s ended by itself three times within two seconds of its start (last: %s)", name, how))
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func (f *Fleet) start(name string, gen int) (*Proc, error) {
	cmd := exec.Command("/bin/sh", "-c", f.command)
	cmd.Env = append(append(os.Environ(), f.env...), f.instanceVar+"="+name)
	// Its own process group, killed when the harness dies, and stopped by
	// the harness's interrupt handler or janitor (package cleanup).
	cleanup.Prepare(cmd, syscall.SIGKILL)
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = w, w
	f.mu.Lock()
	if f.stopping {
		f.mu.Unlock()
		r.Close()
		w.Close()
		return nil, errRoundOver
	}
	err = cmd.Start()
	w.Close()
	if err != nil {
		f.mu.Unlock()
		r.Close()
		return nil, err
	}
	release, err := cleanup.Track(cmd, syscall.SIGKILL)
	if err != nil {
		f.mu.Unlock()
		r.Close()
		cmd.Wait()
		return nil, err
	}
	p := &Proc{Instance: name, Gen: gen, PID: cmd.Process.Pid, started: time.Now(), Started: f.tl.Since(), cmd: cmd, done: make(chan struct{})}
	f.current[name] = p
	f.all = append(f.all, p)
	f.mu.Unlock()
	f.tl.Add(p.Label(), p.PID, "started: /bin/sh -c as pid %d", p.PID)
	go func() {
		lines := bufio.NewScanner(r)
		lines.Buffer(make([]byte, 64*1024), 1024*1024)
		for lines.Scan() {
			f.tl.Add(p.Label(), p.OwnPID(), "says: %s", lines.Text())
		}
		r.Close()
		cmd.Wait()
		release()
		f.mu.Lock()
		p.Ended = f.tl.Since()
		f.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// lastWords returns the last line p wrote.
func (f *Fleet) lastWords(p *Proc) string {
	if lines := LastLines(f.tl.Events(), p, 1); len(lines) > 0 {
		return lines[0]
	}
	return "(nothing)"
}

// LastLines returns the last n lines p wrote, oldest first.
func LastLines(events []Event, p *Proc, n int) []string {
	var out []string
	for i := len(events) - 1; i >= 0 && len(out) < n; i-- {
		if what, ok := strings.CutPrefix(events[i].What, "says: "); ok && events[i].Who == p.Label() {
			out = append(out, what)
		}
	}
	slices.Reverse(out)
	return out
}

func exitText(s *os.ProcessState) string {
	if ws, ok := s.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "signal " + ws.Signal().String()
	}
	return fmt.Sprintf("exit status %d", s.ExitCode())
}

func (f *Fleet) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.broken == nil {
		f.broken = err
	}
}

// Broken returns why the fleet could not keep the relay running, or nil.
func (f *Fleet) Broken() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.broken
}

// Live returns the process now running for each instance, by name.
func (f *Fleet) Live() []*Proc {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*Proc
	for _, p := range f.current {
		select {
		case <-p.done:
		default:
			out = append(out, p)
		}
	}
	sortProcs(out)
	return out
}

// All returns every process the fleet started, in order.
func (f *Fleet) All() []*Proc {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*Proc(nil), f.all...)
}

// Kill sends SIGKILL to p's process group and waits until p is gone.
func (f *Fleet) Kill(p *Proc) {
	f.mu.Lock()
	f.killed[p.PID] = true
	f.mu.Unlock()
	syscall.Kill(-p.PID, syscall.SIGKILL)
	<-p.done
}

// Stop sends SIGSTOP to p's process group; Cont sends SIGCONT.
func (f *Fleet) Stop(p *Proc) { syscall.Kill(-p.PID, syscall.SIGSTOP) }

// Cont lets a stopped process group go on.
func (f *Fleet) Cont(p *Proc) { syscall.Kill(-p.PID, syscall.SIGCONT) }

// Owner returns the live relay process that holds the loopback TCP
// socket from local port port to remote port remote, or nil. The kernel's
// socket table is read a page at a time, and a socket may slip between
// two pages while others come and go: it is read up to five times.
func (f *Fleet) Owner(port, remote int) *Proc {
	inode, err := socketInode(port, remote)
	for try := 1; err != nil && try < 5; try++ {
		time.Sleep(5 * time.Millisecond)
		inode, err = socketInode(port, remote)
	}
	if err != nil {
		return nil
	}
	for _, p := range f.Live() {
		for _, pid := range group(p.PID) {
			if holds(pid, inode) {
				return p
			}
		}
	}
	return nil
}

// Ports returns the local ports of p's TCP sockets: its connections to
// the database and the broker.
func (f *Fleet) Ports(p *Proc) []int {
	var ports []int
	for _, pid := range group(p.PID) {
		ports = append(ports, localPorts(pid)...)
	}
	return ports
}

// Shutdown ends every instance: SIGCONT (a stopped process cannot end),
// SIGTERM, and SIGKILL after grace.
func (f *Fleet) Shutdown(grace time.Duration) {
	f.mu.Lock()
	f.stopping = true
	live := make([]*Proc, 0, len(f.current))
	for _, p := range f.current {
		live = append(live, p)
	}
	f.mu.Unlock()
	for _, p := range live {
		syscall.Kill(-p.PID, syscall.SIGCONT)
		syscall.Kill(-p.PID, syscall.SIGTERM)
	}
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	expired := false
	for _, p := range live {
		if !expired {
			select {
			case <-p.done:
				continue
			case <-deadline.C:
				expired = true
			}
		}
		select {
		case <-p.done:
		default:
			f.tl.Add("harness", 0, "%s did not end within %s of SIGTERM: SIGKILL", p.Label(), grace)
			syscall.Kill(-p.PID, syscall.SIGKILL)
			<-p.done
			f.ignoredSIGTERM(p, grace)
		}
	}
	f.wg.Wait()
}

func sortProcs(ps []*Proc) {
	slices.SortFunc(ps, func(a, b *Proc) int { return strings.Compare(a.Instance, b.Instance) })
}
