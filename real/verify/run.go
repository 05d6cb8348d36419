package verify

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kfake"

	"outboxlab/lang"
	"outboxlab/real/pglab"
	"outboxlab/sim/check"
	"outboxlab/variant"
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
	// SentBy is what makes a row sent: its status (the default) or, for a
	// CDC relay, the position it confirmed on the round's slot.
	SentBy SentBy
	// Pace is the time between two commands of the workload; Quiesce how
	// long the rows may take to be sent after the last command and fault.
	Pace    time.Duration
	Quiesce time.Duration
	// Stop, once closed, ends the round in progress: its relays are
	// killed and RunRound returns ErrInterrupted. nil never closes.
	Stop <-chan struct{}
	// Consumer, in place of Relay, is the command that starts one
	// consumer instance (CONSUMERS.md): the rounds are ConsumerRounds, and
	// Mapping runs on the billing database.
	Consumer string
}

// ErrMapping is wrapped by RunRound's error when the mapping SQL fails.
var ErrMapping = errors.New("the mapping SQL failed")

// ErrInterrupted is RunRound's error when Config.Stop closed.
var ErrInterrupted = errors.New("interrupted")

// Result is what one round came to.
type Result struct {
	Round      Round
	Outcome    variant.Outcome
	Violations []check.Violation
	// NotReached are faults whose produce request never came: the round
	// did not test them, and fails.
	NotReached []Fault
	// NotMade are faults whose moment came but which the harness could
	// not make (a rebalance after which no partition went back): the
	// round did not test them, and fails.
	NotMade []NotMade
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
	return r.Outcome == variant.OK && len(r.NotReached) == 0 && len(r.NotMade) == 0 && len(r.Breaches) == 0
}

// NotMade is a fault the harness could not make, and why.
type NotMade struct {
	Fault Fault
	Why   string
}

func (n NotMade) String() string { return n.Fault.String() + ": " + n.Why }

// RunRound plays one round and judges it. Its error is the harness's
// (no database, a mapping that fails, a relay command that cannot run),
// never the relay's: that is the verdict.
func RunRound(cfg Config, r Round) (Result, error) {
	if r.Consumer {
		return runConsumerRound(cfg, r)
	}
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
		vs = append(vs, check.Violation{Outcome: variant.Stuck, Detail: lang.Text{EN: err.Error()}})
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
	commits *commits // with BySlot
	db      *writerWatch
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
	env := []string{EnvDatabaseURL + "=" + dsn, EnvTopic + "=" + Topic, EnvLease + "=" + strconv.FormatInt(cfg.Lease.Milliseconds(), 10), EnvIDHeader + "=" + cfg.IDHeader}
	if cfg.SentBy == BySlot {
		if w.commits, err = newCommits(ctx, w.pool); err != nil {
			w.close()
			return nil, err
		}
		env = append(env, EnvSlot+"="+w.commits.relay)
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
	env = append(env, EnvBrokers+"="+strings.Join(w.cluster.ListenAddrs(), ","))
	var names []string
	for i := 1; i <= r.Instances; i++ {
		names = append(names, fmt.Sprintf("relay-%d", i))
	}
	w.drv = &driver{tl: w.tl, cluster: w.cluster, pool: w.pool, lease: cfg.Lease, faults: r.Faults, fired: make([]bool, len(r.Faults))}
	w.tl.Add("harness", 0, "round %s: %d instance(s) of %q, faults %v", r.Name, r.Instances, cfg.Relay, r.Faults)
	w.fleet = StartFleet(cfg.Relay, names, env, w.tl)
	w.drv.fleet = w.fleet
	w.tap.SetHook(w.drv.hook, w.fleet.Owner)
	w.db = watchWriters(w.pool, w.fleet, w.tl, cfg.Server.Port)
	return w, nil
}

func (w *world) close() {
	if w.fleet != nil {
		w.fleet.Shutdown(3 * time.Second)
	}
	if w.db != nil {
		w.db.close()
	}
	if w.cluster != nil {
		w.cluster.Close()
	}
	if err := dropSlots(context.Background(), w.pool); err != nil {
		w.tl.Add("harness", 0, "cannot drop the round's replication slots: %v", err)
	}
	w.pool.Close()
}

// MoreCommands is how many commands, drawn from the round's seed after
// its workload, the service goes on with, slowly, while a fault of the
// round has not fired (a relay that batches makes fewer produce requests
// than the workload's commands) or is still in progress (a stall, an
// outage: live claims meet the instance that resumes).
const MoreCommands = 80

// FirstProduceWait bounds how long the more commands wait for a relay's
// first produce request: a relay on the JVM may take ten seconds to
// start on a loaded machine, and would otherwise find the workload over
// and publish it in one or two requests, leaving the faults aimed at
// later ones unreached.
const FirstProduceWait = 30 * time.Second

// awaitFirstProduce waits until the broker has seen a produce request, at
// most FirstProduceWait.
func (w *world) awaitFirstProduce(stop <-chan struct{}) {
	deadline := time.Now().Add(FirstProduceWait)
	if len(w.tap.Produces()) > 0 {
		return
	}
	w.tl.Add("harness", 0, "no produce request yet: the more commands wait for the relay's first (at most %s)", FirstProduceWait)
	for len(w.tap.Produces()) == 0 && time.Now().Before(deadline) && w.fleet.Broken() == nil && !stopped(stop) {
		time.Sleep(20 * time.Millisecond)
	}
}

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
			w.awaitFirstProduce(cfg.Stop)
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
		if n, err := w.unsent(ctx); err != nil {
			w.tl.Add("harness", 0, "cannot count the unsent rows: %v", err)
		} else {
			left = n
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
	if cfg.SentBy == BySlot {
		return false, fmt.Sprintf("%d row(s) neither past slot %s's confirmed position nor DEAD_LETTER %s after the last command and fault", left, w.commits.relay, cfg.Quiesce)
	}
	return false, fmt.Sprintf("%d row(s) neither SENT nor DEAD_LETTER %s after the last command and fault", left, cfg.Quiesce)
}

// end notes which processes are still cut off from the database and ends
// the relays (SIGTERM, and SIGKILL three seconds later).
func (w *world) end() {
	w.cutOff = w.stillCutOff()
	w.fleet.Shutdown(3 * time.Second)
}

// unsent counts the rows neither sent nor given up.
func (w *world) unsent(ctx context.Context) (int, error) {
	if w.commits == nil {
		left := 0
		err := w.pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE status NOT IN ('SENT', 'DEAD_LETTER')`).Scan(&left)
		return left, err
	}
	sent, err := w.commits.sent(ctx)
	if err != nil {
		return 0, err
	}
	rows, err := w.pool.Query(ctx, `SELECT event_id FROM outbox WHERE status <> 'DEAD_LETTER'`)
	if err != nil {
		return 0, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	left := 0
	for _, id := range ids {
		if !sent[id] {
			left++
		}
	}
	return left, err
}

func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}
