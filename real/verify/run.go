package verify

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kfake"

	"outboxlab/lab/check"
	"outboxlab/lab/lang"
	"outboxlab/real/pglab"
)

// Config is a verify run: the relay command and how its world is made.
type Config struct {
	// Relay is the command that starts one relay instance, run by
	// /bin/sh -c with the contract's environment.
	Relay  string
	Server *pglab.Server
	// Seed draws the random rounds and the workloads.
	Seed     uint64
	Lease    time.Duration
	IDHeader string
	// Mapping is SQL run after the contract's schema: a team's own names
	// over the table (a view), "" for none.
	Mapping string
	// Pace is the time between two commands of the workload; Quiesce how
	// long the rows may take to be sent after the last command and fault.
	Pace    time.Duration
	Quiesce time.Duration
	// Stop, once closed, ends the round in progress: its relays are
	// killed and RunRound returns ErrInterrupted. nil never closes.
	Stop <-chan struct{}
}

// ErrMapping is wrapped by RunRound's error when the mapping SQL fails.
var ErrMapping = errors.New("the mapping SQL failed")

// ErrInterrupted is RunRound's error when Config.Stop closed.
var ErrInterrupted = errors.New("interrupted")

// Result is what one round came to.
type Result struct {
	Round      Round
	Outcome    check.Outcome
	Violations []check.Violation
	// NotReached are faults whose produce request never came: the round
	// did not test them, and fails.
	NotReached []Fault
	// Late, for a round that failed, is a produce request that came after
	// its sender's lease ran out without a fault of the harness: the
	// replay stages it (Late.Fault); nil if there was none.
	Late *Late
	// Repeats are every repetition of the round, this one among them,
	// when it was played more than once (labrun-real verify --repeat).
	Repeats []Result
	// Breaches are rules the relay's processes broke that no outcome
	// names: a process that ended by itself (the round ended there, and
	// nothing else was judged), one that ignored SIGTERM.
	Breaches  []Breach
	Timeline  []Event
	Committed []Committed
	Wall      time.Duration
}

// OK reports whether the round passed: no violation, no breach, every
// fault made.
func (r Result) OK() bool {
	return r.Outcome == check.OK && len(r.NotReached) == 0 && len(r.Breaches) == 0
}

// RunRound plays one round and judges it. Its error is the harness's
// (no database, a mapping that fails, a relay command that cannot run),
// never the relay's: that is the verdict.
func RunRound(cfg Config, r Round) (Result, error) {
	start := time.Now()
	w, err := openWorld(cfg, r)
	if err != nil {
		return Result{}, err
	}
	defer w.close()
	quiet, busy := w.play(cfg, r)
	if stopped(cfg.Stop) {
		return Result{}, ErrInterrupted
	}
	if err := w.fleet.Broken(); errors.Is(err, ErrCannotRun) {
		return Result{}, err
	}
	if w.fleet.ended() {
		return Result{Round: r, Breaches: w.fleet.Breaches(), Timeline: w.tl.Events(), Committed: w.svc.Committed(), Wall: time.Since(start)}, nil
	}
	e, err := w.evidence(cfg, r)
	if err != nil {
		return Result{}, err
	}
	e.Quiesced, e.Busy = quiet, busy
	vs, err := Judge(e)
	if err != nil {
		return Result{}, err
	}
	if err := w.fleet.Broken(); err != nil {
		vs = append(vs, check.Violation{Outcome: check.Stuck, Detail: lang.Text{EN: err.Error()}})
	}
	res := Result{Round: r, Outcome: check.Worst(vs), Violations: vs, NotReached: w.drv.notReached(), Breaches: w.fleet.Breaches(),
		Timeline: w.tl.Events(), Committed: e.Committed, Wall: time.Since(start)}
	if late, ok := lateProduce(e); ok && !res.OK() {
		res.Late = &late
	}
	return res, nil
}

// world is one round's database, broker, service and relays.
type world struct {
	pool    *pgxpool.Pool
	cluster *kfake.Cluster
	tl      *Timeline
	tap     *Tap
	svc     *Service
	fleet   *Fleet
	drv     *driver
	db      *dbWatch
	// cutOff are the processes that held no database connection from the
	// cut of theirs to the end of the round.
	cutOff []CutOff
}

func openWorld(cfg Config, r Round) (*world, error) {
	ctx := context.Background()
	dsn, err := cfg.Server.EmptyDatabase(ctx)
	if err != nil {
		return nil, err
	}
	w := &world{tl: NewTimeline()}
	if w.pool, err = pgxpool.New(ctx, dsn); err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	if _, err := w.pool.Exec(ctx, Schema+labSchema); err != nil {
		w.pool.Close()
		return nil, fmt.Errorf("verify: schema: %w", err)
	}
	if cfg.Mapping != "" {
		if _, err := w.pool.Exec(ctx, cfg.Mapping); err != nil {
			w.pool.Close()
			return nil, fmt.Errorf("verify: %w: %v", ErrMapping, err)
		}
	}
	w.tap = NewTap(w.tl, cfg.IDHeader)
	if w.cluster, err = kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(Partitions, Topic), kfake.ListenFn(w.tap.Listen)); err != nil {
		w.pool.Close()
		return nil, fmt.Errorf("verify: broker: %w", err)
	}
	if w.svc, err = NewService(w.pool, w.tl); err != nil {
		w.close()
		return nil, err
	}
	env := []string{EnvDatabaseURL + "=" + dsn, EnvBrokers + "=" + strings.Join(w.cluster.ListenAddrs(), ","),
		EnvTopic + "=" + Topic, EnvLease + "=" + strconv.FormatInt(cfg.Lease.Milliseconds(), 10), EnvIDHeader + "=" + cfg.IDHeader}
	var names []string
	for i := 1; i <= r.Instances; i++ {
		names = append(names, fmt.Sprintf("relay-%d", i))
	}
	w.drv = &driver{tl: w.tl, cluster: w.cluster, pool: w.pool, lease: cfg.Lease, faults: r.Faults, fired: make([]bool, len(r.Faults))}
	w.tl.Add("harness", 0, "round %s: %d instance(s) of %q, faults %v", r.Name, r.Instances, cfg.Relay, r.Faults)
	w.fleet = StartFleet(cfg.Relay, names, env, w.tl)
	w.drv.fleet = w.fleet
	w.tap.SetHook(w.drv.hook, w.fleet.Owner)
	w.db = watchDatabase(w.pool, w.fleet, w.tl, cfg.Server.Port)
	return w, nil
}

func (w *world) close() {
	if w.fleet != nil {
		w.fleet.Shutdown(3 * time.Second)
	}
	if w.db != nil {
		w.db.close()
	}
	w.cluster.Close()
	w.pool.Close()
}

// MoreCommands is how many commands, drawn from the round's seed after
// its workload, the service goes on with, slowly, while a fault of the
// round has not fired (a relay that batches makes fewer produce requests
// than the workload's commands) or is still in progress (a stall, an
// outage: live claims meet the instance that resumes).
const MoreCommands = 80

// play runs the workload, waits until every row is sent (or given up)
// and no fault is in progress, and ends the relays. It reports whether
// the round went quiet in time, and if not, what was left.
func (w *world) play(cfg Config, r Round) (bool, string) {
	ctx := context.Background()
	commands := Workload(r.Seed, r.Commands+MoreCommands)
	for i, c := range commands {
		more := i >= len(commands)-MoreCommands
		if w.fleet.Broken() != nil || stopped(cfg.Stop) || more && len(w.drv.notReached()) == 0 && !w.drv.busy() {
			break
		}
		if i == len(commands)-MoreCommands {
			w.tl.Add("harness", 0, "%v not reached yet, %d fault(s) in progress: more commands, one each %s", w.drv.notReached(), w.drv.active.Load(), 4*cfg.Pace)
		}
		if err := w.svc.Handle(ctx, c); err != nil {
			w.tl.Add("service", 0, "%v", err)
		}
		if more {
			time.Sleep(3 * cfg.Pace)
		}
		time.Sleep(cfg.Pace)
	}
	deadline := time.Now().Add(cfg.Quiesce)
	left := 0
	for quiet := 0; time.Now().Before(deadline) && w.fleet.Broken() == nil && !stopped(cfg.Stop); time.Sleep(50 * time.Millisecond) {
		if w.drv.busy() {
			deadline = time.Now().Add(cfg.Quiesce)
		}
		if err := w.pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE status NOT IN ('SENT', 'DEAD_LETTER')`).Scan(&left); err != nil {
			w.tl.Add("harness", 0, "cannot count the unsent rows: %v", err)
		}
		if left == 0 && !w.drv.busy() {
			quiet++
		} else {
			quiet = 0
		}
		if quiet == 5 {
			w.tl.Add("harness", 0, "quiet: every row sent or given up")
			w.end()
			return true, ""
		}
	}
	w.end()
	return false, fmt.Sprintf("%d row(s) neither SENT nor DEAD_LETTER %s after the last command and fault", left, cfg.Quiesce)
}

// end notes which processes are still cut off from the database and ends
// the relays (SIGTERM, and SIGKILL three seconds later).
func (w *world) end() {
	w.cutOff = w.stillCutOff()
	w.fleet.Shutdown(3 * time.Second)
}

func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}
