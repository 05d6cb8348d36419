package sqlitelab

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"outboxlab/lab/check"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/real/cleanup"
	"outboxlab/scenarios"
)

// Config is one run on real parts.
type Config struct {
	Variant string
	// Relays is how many relay processes run: 1 or 2.
	Relays int
	// Crash is the crash point ("relay.after-send"), "" for a run without
	// one; Occurrence is which crossing of it kills the process (1 = the
	// first), counted over every process.
	Crash      string
	Occurrence int
	// Workload defaults to the matrix's (scenarios.Workload).
	Workload []orders.Command
	// Program and Args start a child: the running executable, which calls
	// Child first (a test binary passes -test.run=^$ too).
	Program string
	Args    []string
	// Dir is where the run's SQLite files go; "" for a temporary directory,
	// removed afterwards.
	Dir string
	// Postgres is the connection string of a PostgreSQL database for the
	// order database (orders, outbox, commit log), "" to keep it in a
	// SQLite file. Whatever tables of the harness's it holds are dropped
	// first; a database serves one run at a time.
	Postgres string
	// Quiesce is how long the system may take to go quiet after the
	// workload; 0 means 20 s.
	Quiesce time.Duration
	// Burst hands the service each command as soon as it answered the one
	// before. Without it the parent paces the workload as the simulator's
	// does (a command a second, a relay that claims within milliseconds):
	// the next command waits until a relay claimed the last one's message,
	// so that a claim holds one message, as in the simulator's runs.
	Burst bool
}

// Result is what one run on real parts came to.
type Result struct {
	Outcome    check.Outcome
	Violations []check.Violation
	// Fired reports whether the crash point was reached Occurrence times,
	// so that a process was killed.
	Fired bool
	// Deaths are the processes killed by a signal, with their successors.
	Deaths []Death
	// Timeline is what every process said, in the order the parent heard
	// it, each line with the time since the start and the process.
	Timeline []string
	// Commits counts the transactions committed in the order database.
	Commits int
	Wall    time.Duration
}

// Death is a process that died by a signal, and the process that took its
// place.
type Death struct {
	Process string
	PID     int
	Signal  syscall.Signal
	// Successor is the process id of the restarted process.
	Successor int
}

// Run runs the workload on real processes over SQLite, kills the process
// that crosses the crash point its Occurrence-th time, restarts it, lets the
// system quiesce, and judges what the databases and the broker hold with the
// core's checker.
func Run(cfg Config) (Result, error) {
	v, err := FindVariant(cfg.Variant)
	if err != nil {
		return Result{}, err
	}
	if v.cdc && cfg.Postgres == "" {
		return Result{}, fmt.Errorf("sqlitelab: variant %q: %w on SQLite: its relay reads PostgreSQL's WAL (set Config.Postgres)", v.Name, ErrNotInMatrix)
	}
	if v.cdc && cfg.Relays != 1 {
		return Result{}, fmt.Errorf("sqlitelab: Relays = %d, want 1 for cdc: a replication slot has one reader", cfg.Relays)
	}
	if cfg.Relays < 1 || cfg.Relays > 2 {
		return Result{}, fmt.Errorf("sqlitelab: Relays = %d, want 1 or 2", cfg.Relays)
	}
	if cfg.Crash != "" && cfg.Occurrence < 1 {
		return Result{}, fmt.Errorf("sqlitelab: Occurrence = %d, want >= 1 with a crash point", cfg.Occurrence)
	}
	if cfg.Workload == nil {
		for _, c := range scenarios.Workload() {
			cfg.Workload = append(cfg.Workload, c.Command)
		}
	}
	if cfg.Quiesce == 0 {
		cfg.Quiesce = 20 * time.Second
	}
	if cfg.Dir == "" {
		dir, err := cleanup.MkdirTemp("", "outboxlab-real-")
		if err != nil {
			return Result{}, fmt.Errorf("sqlitelab: %w", err)
		}
		defer cleanup.RemoveAll(dir)
		cfg.Dir = dir
	}
	if err := create(cfg.Dir, cfg.Postgres, v.cdc); err != nil {
		return Result{}, err
	}
	if err := setCrash(cfg); err != nil {
		return Result{}, err
	}

	r := &run{cfg: cfg, variant: v, start: time.Now(), started: map[string]time.Time{}}
	res, err := r.run()
	res.Wall = time.Since(r.start)
	res.Timeline = r.timeline
	res.Deaths = r.deaths
	return res, err
}

func setCrash(cfg Config) error {
	control, err := open(cfg.Dir, controlFile)
	if err != nil {
		return err
	}
	defer control.Close()
	if cfg.Crash == "" {
		return nil
	}
	_, err = control.Exec(`INSERT INTO crash (point, occurrence, crossed, fired_pid) VALUES (?, ?, 0, 0)`, cfg.Crash, cfg.Occurrence)
	return err
}

// run is the parent's view of one run: its children, what they said, who
// died.
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
	// started is when the process now running under each name was
	// started: a claim it made is in its hands (see inHand).
	started map[string]time.Time
	// acknowledged are the order ids of the commands the service answered
	// "ok", one per command.
	acknowledged []string
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

func (r *run) say(name string, pid int, line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timeline = append(r.timeline, fmt.Sprintf("%8.1fms %-8s %-7d %s",
		float64(time.Since(r.start).Microseconds())/1000, name, pid, line))
}

// spawn starts a child process for role under name.
func (r *run) spawn(role, name string) (*child, error) {
	cmd := exec.Command(r.cfg.Program, r.cfg.Args...)
	cmd.Env = append(os.Environ(), envRole+"="+role, envName+"="+name, envDir+"="+r.cfg.Dir, envVariant+"="+r.variant.Name, envPostgres+"="+r.cfg.Postgres)
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
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("sqlitelab: start %s: %w", name, err)
	}
	if c.release, err = cleanup.Track(cmd, syscall.SIGKILL); err != nil {
		return nil, fmt.Errorf("sqlitelab: %w", err)
	}
	go func() {
		defer close(c.said)
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			r.say(name, cmd.Process.Pid, lines.Text())
		}
	}()
	return c, nil
}

// wait waits for c to exit. A death by SIGKILL is recorded (the crash
// point's doing); any other end but a requested stop fails the run.
func (r *run) wait(c *child) (killed bool) {
	<-c.said
	err := c.cmd.Wait()
	c.release()
	r.mu.Lock()
	defer r.mu.Unlock()
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
		at := time.Now()
		c, err := r.spawn(role, name)
		if err != nil {
			r.fail(err)
			return
		}
		r.mu.Lock()
		r.live = append(r.live, c)
		r.started[name] = at
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
// their current step).
func (r *run) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopping = true
	for _, c := range r.live {
		c.cmd.Process.Signal(syscall.SIGTERM) // an exited one returns an error; nothing to do
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
	world, fired, commits, err := readWorld(r.cfg.Dir, r.cfg.Postgres, len(r.deaths))
	if err != nil {
		return Result{}, err
	}
	world.Quiesced, world.Busy, world.Acknowledged = quiet, busy, r.acknowledged
	vs := check.Check(world)
	return Result{Outcome: check.Worst(vs), Violations: vs, Fired: fired, Commits: commits}, nil
}

// workload hands the commands to the service, one at a time, as its
// clients would. A command the service died on is not sent again (its
// client got no answer); the service is restarted for the next one.
func (r *run) workload() error {
	svc, err := r.spawn("service", "service")
	if err != nil {
		return err
	}
	w, err := r.watch()
	if err != nil {
		return err
	}
	defer w.close()
	for i, c := range r.cfg.Workload {
		if i > 0 && !r.cfg.Burst {
			if err := w.waitUntilTaken(); err != nil {
				return err
			}
		}
		line, err := json.Marshal(toWire(c))
		if err != nil {
			return fmt.Errorf("sqlitelab: command %s: %w", c, err)
		}
		_, err = fmt.Fprintf(svc.stdin, "%s\n", line)
		answer := ""
		if err == nil {
			answer, err = svc.stdout.ReadString('\n')
		}
		if err == nil {
			if answer == "ok\n" {
				r.acknowledged = append(r.acknowledged, c.OrderID)
			}
			continue
		}
		if killed := r.wait(svc); !killed {
			if err := r.failure(); err != nil {
				return err
			}
			return fmt.Errorf("sqlitelab: the service ended at %s", c)
		}
		if svc, err = r.spawn("service", "service"); err != nil {
			return err
		}
		r.restarted(svc)
	}
	svc.stdin.Close()
	r.wait(svc)
	return r.failure()
}

// watcher is the parent's view of the order database and the broker while
// the system runs.
type watcher struct {
	orders orderDB
	broker *sql.DB
	cdc    bool // the relay reads the WAL: nothing in the outbox is ever due
}

func (r *run) watch() (*watcher, error) {
	orders, err := openOrders(r.cfg.Dir, r.cfg.Postgres)
	if err != nil {
		return nil, err
	}
	brk, err := open(r.cfg.Dir, BrokerFile)
	if err != nil {
		orders.Close()
		return nil, err
	}
	return &watcher{orders: orders, broker: brk, cdc: r.variant.cdc}, nil
}

func (w *watcher) close() {
	w.orders.Close()
	w.broker.Close()
}

// toSend counts the messages a relay is yet to take before t: the outbox
// messages due (see due), or, for the CDC relay, the messages committed in
// transactions its slot has not confirmed (the simulator's cdc relay: the
// commit log past its offset).
func (w *watcher) toSend(t time.Time) (int, error) {
	if !w.cdc {
		return due(w.orders.DB, t)
	}
	var n int
	err := w.orders.QueryRow(`SELECT COUNT(*) FROM commit_log c, pg_replication_slots s
		WHERE s.slot_name = `+slotName+` AND c.tbl = $1 AND c.body IS NOT NULL AND c.lsn >= s.confirmed_flush_lsn`, outbox.Table).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("sqlitelab: %w", err)
	}
	return n, nil
}

// unacked counts the broker's messages not acknowledged.
func (w *watcher) unacked() (int, error) {
	var n int
	if err := w.broker.QueryRow(`SELECT COUNT(*) FROM log WHERE acked = 0`).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlitelab: %w", err)
	}
	return n, nil
}

// waitUntilTaken waits until the relays took every message there is to
// take (see untaken), at most ten seconds (a relay that was killed starts
// again at once, but a busy machine may take seconds to start it).
func (w *watcher) waitUntilTaken() error {
	deadline := time.Now().Add(10 * time.Second)
	for ; time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		var n int
		var err error
		if w.cdc {
			n, err = w.toSend(time.Now())
		} else {
			n, err = untaken(w.orders.DB, deadline)
		}
		if err != nil || n == 0 {
			return err
		}
	}
	return nil
}

// untaken counts the outbox messages the relays are yet to claim, by t:
// every PENDING or FAILED message of an order whose oldest unsent message
// is due by t, or is in flight: claimed less than two seconds ago (a live
// relay marks it in milliseconds, and then claims the ones behind it) or
// under a lease that ends by t. An order whose oldest unsent message is a
// dead letter, waits out a backoff past t, or is held longer (the claim of
// a relay that died, which no-inflight-recovery never recovers) is
// blocked, and the parent does not wait for it. The simulator's relay
// claims a message within milliseconds of its commit and the next command
// comes a second later, so each of its claims there holds one message;
// waiting only for what was due now was not enough: an amendment waiting
// behind its order's first message, in flight, and the next order's
// message were claimed together, and a crash after the first one's mark
// left the second where no-inflight-recovery's eternal claim keeps it
// (STUCK, where the simulator says OK).
func untaken(db *sql.DB, t time.Time) (int, error) {
	unsent, err := scanMessages(db, `SELECT body FROM outbox WHERE status <> 'SENT' ORDER BY seq`)
	if err != nil {
		return 0, err
	}
	n, seen, blocked := 0, map[string]bool{}, map[string]bool{}
	for _, m := range unsent {
		agg := m.Event.AggregateID
		if !seen[agg] {
			seen[agg] = true
			at, ok := m.ClaimableAt()
			inFlight := m.Status == outbox.InFlight && time.Since(m.ClaimedAt) < 2*time.Second
			blocked[agg] = !inFlight && (!ok || !at.Before(t))
		}
		if !blocked[agg] && (m.Status == outbox.Pending || m.Status == outbox.Failed) {
			n++
		}
	}
	return n, nil
}

// due counts the outbox messages a relay may claim before t, as
// outbox.Relay.NextWake sees them: the oldest unsent message of each
// aggregate (its later ones wait behind it), if it is claimable by then.
func due(db *sql.DB, t time.Time) (int, error) {
	unsent, err := scanMessages(db, `SELECT body FROM outbox WHERE status <> 'SENT' ORDER BY seq`)
	if err != nil {
		return 0, err
	}
	n, seen := 0, map[string]bool{}
	for _, m := range unsent {
		if seen[m.Event.AggregateID] {
			continue
		}
		seen[m.Event.AggregateID] = true
		if at, ok := m.ClaimableAt(); ok && at.Before(t) {
			n++
		}
	}
	return n, nil
}

// quiesce waits until nothing is left to do before the deadline, five
// polls in a row: every message in the broker acknowledged, and no outbox
// message a relay may claim before the deadline (SENT, a dead letter, or a
// claim whose lease outlasts it). That is the simulator's "nothing due". It
// reports false, and what was still going on, if that did not happen
// within cfg.Quiesce.
func (r *run) quiesce() (bool, string, error) {
	w, err := r.watch()
	if err != nil {
		return false, "", err
	}
	defer w.close()
	deadline := time.Now().Add(r.cfg.Quiesce)
	quietPolls, dueNow, unacked, inHand := 0, 0, 0, 0
	for time.Now().Before(deadline) {
		if err := r.failure(); err != nil {
			return false, "", err
		}
		var err error
		if dueNow, err = w.toSend(deadline); err != nil {
			return false, "", fmt.Errorf("sqlitelab: quiesce: %w", err)
		}
		if unacked, err = w.unacked(); err != nil {
			return false, "", fmt.Errorf("sqlitelab: quiesce: %w", err)
		}
		if !w.cdc {
			if inHand, err = r.inHand(w.orders.DB); err != nil {
				return false, "", fmt.Errorf("sqlitelab: quiesce: %w", err)
			}
		}
		if dueNow == 0 && unacked == 0 && inHand == 0 {
			quietPolls++
		} else {
			quietPolls = 0
		}
		if quietPolls == 5 {
			return true, "", nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false, fmt.Sprintf("after %s, %d outbox message(s) still to send, %d in a live relay's hands, %d not acknowledged in the broker", r.cfg.Quiesce, dueNow, inHand, unacked), nil
}

// inHand counts the messages a live relay holds in flight: claimed by the
// process now running under the claim's owner name, which is sending and
// marking them, the simulator's relay in the middle of its step. Between
// two sends of its batch nothing may be due and the broker may have
// acknowledged everything; the check must not run then (it found three
// messages LOST that the relay was about to send, under load). The claims
// of a relay that died are not in anyone's hands: the verdict judges them.
func (r *run) inHand(db *sql.DB) (int, error) {
	held, err := scanMessages(db, `SELECT body FROM outbox WHERE status = 'IN_FLIGHT'`)
	if err != nil {
		return 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range held {
		if since, ok := r.started[m.LeaseOwner]; ok && !m.ClaimedAt.Before(since) {
			n++
		}
	}
	return n, nil
}
