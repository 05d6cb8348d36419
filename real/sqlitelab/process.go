package sqlitelab

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"outboxlab/lang"
	"outboxlab/real/cleanup"
	"outboxlab/sim/check"
)

// Death is a process that died by a signal, and the process that took its
// place.
type Death struct {
	Process string
	PID     int
	Signal  syscall.Signal
	// Successor is the process id of the restarted process.
	Successor int
}

// run is the parent's view of one run: its children, what they said, who
// died, who is frozen.
type run struct {
	cfg     Config
	variant Variant
	start   time.Time

	mu       sync.Mutex
	timeline []string
	deaths   []Death
	failed   error // a child that died other than by SIGKILL: the harness is broken
	stopping bool
	live     []*child // every relay and billing process started
	// procs is the state of the process now running under each name.
	procs map[string]*procState
	// acknowledged are the order ids of the commands the service answered
	// "ok", one per command.
	acknowledged []string
	// stallsFired and stallsPending count the stalls that happened and
	// those whose process is not resumed yet (or whose outage lasts).
	stallsFired, stallsPending int
	// fired are the stalls that happened, by their number (1 for
	// Config.Stalls[0]): the process that took each, and whether the
	// stall ended by a kill (see Stall.After, Stall.UntilRestarted).
	fired map[int]firedStall
	// stalled tells a service's waiter that its process froze.
	stalled map[string]chan struct{}
}

// procState is the process running under a name.
type procState struct {
	pid int
	// started is when the process was started: a claim made since is in
	// its hands (see holding).
	started     time.Time
	alive       bool
	ready       bool // it said readyWord
	frozen      bool // stopped by its stall, not resumed yet
	incarnation int
}

// child is one running process.
type child struct {
	name   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	said   chan struct{} // closed when its stderr is read to the end
	// release unregisters its process group from package cleanup, once
	// it was waited for.
	release func()
}

func newRun(cfg Config, v Variant) *run {
	return &run{cfg: cfg, variant: v, start: time.Now(), procs: map[string]*procState{}, stalled: map[string]chan struct{}{}, fired: map[int]firedStall{}}
}

func (r *run) say(name string, pid int, line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timeline = append(r.timeline, fmt.Sprintf("%8.1fms %-9s %-7d %s",
		float64(time.Since(r.start).Microseconds())/1000, name, pid, line))
}

// spawn starts a child process for role under name.
func (r *run) spawn(role, name string) (*child, error) {
	r.mu.Lock()
	p := r.procs[name]
	if p == nil {
		p = &procState{}
		r.procs[name] = p
	}
	p.incarnation++
	incarnation := p.incarnation
	r.mu.Unlock()
	cmd := exec.Command(r.cfg.Program, r.cfg.Args...)
	cmd.Env = append(os.Environ(), envRole+"="+role, envName+"="+name, envDir+"="+r.cfg.Dir, envVariant+"="+r.variant.Name,
		envPostgres+"="+r.cfg.Postgres, envLease+"="+r.cfg.Lease.String(), envSeed+"="+strconv.FormatUint(r.cfg.Seed, 10),
		envIncarnation+"="+strconv.Itoa(incarnation))
	c := &child{name: name, cmd: cmd, said: make(chan struct{})}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if role == "service" {
		if c.stdin, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		c.stdout = bufio.NewReader(out)
	}
	// Its own process group (a Ctrl-C reaches the parent, which stops the
	// run in order), killed by the kernel if the parent dies.
	cleanup.Prepare(cmd, syscall.SIGKILL)
	started := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("sqlitelab: start %s: %w", name, err)
	}
	if c.release, err = cleanup.Track(cmd, syscall.SIGKILL); err != nil {
		return nil, fmt.Errorf("sqlitelab: %w", err)
	}
	r.mu.Lock()
	p.pid, p.started, p.alive, p.ready, p.frozen = cmd.Process.Pid, started, true, false, false
	r.mu.Unlock()
	go r.listen(c, stderr)
	return c, nil
}

// listen reads what a child says, and acts on a stall it announces.
func (r *run) listen(c *child, stderr io.Reader) {
	defer close(c.said)
	pid := c.cmd.Process.Pid
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		r.say(c.name, pid, lines.Text())
		if lines.Text() == readyWord {
			r.mu.Lock()
			if p := r.procs[c.name]; p != nil && p.pid == pid {
				p.ready = true
			}
			r.mu.Unlock()
		}
		if point, ok := strings.CutPrefix(lines.Text(), stallWord+" "); ok {
			r.stalling(c.name, pid, strings.TrimSuffix(point, ": SIGSTOP"))
		}
	}
}

// wait waits for c to exit. A death by SIGKILL is recorded (the crash
// point's doing); any other end but a requested stop fails the run.
func (r *run) wait(c *child) (killed bool) {
	<-c.said
	err := c.cmd.Wait()
	c.release()
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.procs[c.name]; p != nil && p.pid == c.cmd.Process.Pid {
		p.alive = false
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			r.deaths = append(r.deaths, Death{Process: c.name, PID: c.cmd.Process.Pid, Signal: ws.Signal()})
			return true
		}
	}
	if err != nil && !r.stopping && r.failed == nil {
		r.failed = fmt.Errorf("sqlitelab: %s (pid %d) ended: %v; its last words: %s", c.name, c.cmd.Process.Pid, err, r.lastWords(c.name))
	}
	return false
}

// lastWords returns the last line the process said.
func (r *run) lastWords(name string) string {
	for i := len(r.timeline) - 1; i >= 0; i-- {
		if f := strings.Fields(r.timeline[i]); len(f) > 1 && f[1] == name {
			return r.timeline[i]
		}
	}
	return "(nothing)"
}

// restarted notes the successor of the last death.
func (r *run) restarted(c *child) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deaths[len(r.deaths)-1].Successor = c.cmd.Process.Pid
}

// supervise keeps a relay or billing running: a process killed at the crash
// point is restarted at once, as a new process under the same name.
func (r *run) supervise(role, name string, wg *sync.WaitGroup) {
	defer wg.Done()
	died := false
	for {
		c, err := r.spawn(role, name)
		if err != nil {
			r.fail(err)
			return
		}
		r.mu.Lock()
		r.live = append(r.live, c)
		if r.stopping {
			c.cmd.Process.Signal(syscall.SIGTERM)
		}
		r.mu.Unlock()
		if died {
			r.restarted(c)
		}
		if killed := r.wait(c); !killed || r.isStopping() {
			return
		}
		died = true
	}
}

// stop asks every relay and billing to finish (SIGTERM: they end after
// their current step), and resumes a frozen one so that it can.
func (r *run) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopping = true
	for _, c := range r.live {
		c.cmd.Process.Signal(syscall.SIGTERM) // an exited one returns an error; nothing to do
		c.cmd.Process.Signal(syscall.SIGCONT)
	}
}

func (r *run) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed == nil {
		r.failed = err
	}
}

func (r *run) isStopping() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopping
}

func (r *run) failure() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// allReady reports whether every relay and billing said it is ready.
func (r *run) allReady() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := []string{"billing"}
	for i := 1; i <= r.cfg.Relays; i++ {
		names = append(names, fmt.Sprintf("relay-%d", i))
	}
	for _, name := range names {
		if p := r.procs[name]; p == nil || !p.ready {
			return false
		}
	}
	return true
}

func (r *run) run() (Result, error) {
	var wg sync.WaitGroup
	for i := 1; i <= r.cfg.Relays; i++ {
		wg.Add(1)
		go r.supervise("relay", fmt.Sprintf("relay-%d", i), &wg)
	}
	wg.Add(1)
	go r.supervise("billing", "billing", &wg)
	err := r.workload()
	quiet, busy := false, ""
	if err == nil {
		quiet, busy, err = r.quiesce()
	}
	r.stop()
	wg.Wait()
	if err == nil {
		err = r.failure()
	}
	if err != nil {
		return Result{}, err
	}
	world, read, err := readWorld(r.cfg.Dir, r.cfg.Postgres, len(r.deaths)+r.stallsFired)
	if err != nil {
		return Result{}, err
	}
	world.Quiesced, world.Busy, world.Acknowledged = quiet, lang.Text{EN: busy}, r.acknowledged
	vs := check.Check(world)
	return Result{Outcome: check.Worst(vs), Violations: vs, Fired: read.fired, Commits: read.commits, Situations: read.situations}, nil
}
