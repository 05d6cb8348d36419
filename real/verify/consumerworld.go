package verify

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kfake"

	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/sim/check"
	"outboxlab/variant"
)

// consumerWorld is one consumer round's databases, broker, service,
// relay and consumers: the orders database the service writes, the
// billing database the consumers write, and the topic between them.
type consumerWorld struct {
	orders, billing *pgxpool.Pool
	cluster         *kfake.Cluster
	tl              *Timeline
	tap             *OffsetTap
	svc             *Service
	pub             *publisher
	fleet           *Fleet
	group           *groupView
	watch           *dbWatch
	drv             *consumerDriver
	stop            context.CancelFunc
}

// ConsumerMoreCommands is how many commands, drawn from the round's seed
// after its workload, the service goes on with, slowly, while a fault of
// the round has not fired or is in progress (a stall lasts seconds, and
// the other instances go on working meanwhile), or a partition wants a
// fresh record after the broker lost its offsets.
const ConsumerMoreCommands = 60

// runConsumerRound plays one consumer round and judges it (RunRound with
// Config.Consumer).
func runConsumerRound(cfg Config, r Round) (Result, error) {
	start := time.Now()
	w, err := openConsumerWorld(cfg, r)
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
	e, err := w.evidence()
	if err != nil {
		return Result{}, err
	}
	e.Quiesced, e.Busy = quiet, busy
	vs := JudgeConsumer(e)
	if err := w.fleet.Broken(); err != nil {
		vs = append(vs, check.Violation{Outcome: variant.Stuck, Detail: lang.Text{EN: err.Error()}})
	}
	// An instance that ends by itself is STUCK above, as CONSUMERS.md
	// says; the breach a consumer round reports is rule 8's.
	var breaches []Breach
	for _, b := range w.fleet.Breaches() {
		if b.Verdict == IgnoredSIGTERM {
			breaches = append(breaches, b)
		}
	}
	return Result{Round: r, Outcome: check.Worst(vs), Violations: vs, NotReached: w.drv.notReached(), NotMade: w.drv.unmade(), Breaches: breaches,
		Timeline: w.tl.Events(), Committed: e.Committed, Wall: time.Since(start)}, nil
}

func openConsumerWorld(cfg Config, r Round) (*consumerWorld, error) {
	ctx := context.Background()
	w := &consumerWorld{tl: NewTimeline()}
	ok := false
	defer func() {
		if !ok {
			w.close()
		}
	}()
	var err error
	if w.orders, err = database(ctx, cfg, Schema+labSchema, ""); err != nil {
		return nil, err
	}
	billingDSN, err := cfg.Server.EmptyDatabase(ctx)
	if err != nil {
		return nil, err
	}
	if w.billing, err = database(ctx, cfg, BillingSchema+labBillingSchema, billingDSN); err != nil {
		return nil, err
	}
	if cfg.Mapping != "" {
		if _, err := w.billing.Exec(ctx, cfg.Mapping); err != nil {
			return nil, fmt.Errorf("verify: %w: %v", ErrMapping, err)
		}
	}
	if w.svc, err = NewService(w.orders, w.tl); err != nil {
		return nil, err
	}
	w.tap = &OffsetTap{tl: w.tl}
	if w.cluster, err = kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(Partitions, Topic), kfake.ListenFn(w.tap.Listen),
		kfake.GroupMinSessionTimeout(500*time.Millisecond), kfake.BrokerConfigs(map[string]string{
			"group.consumer.session.timeout.ms":    strconv.FormatInt(SessionTimeout.Milliseconds(), 10),
			"group.consumer.heartbeat.interval.ms": strconv.FormatInt(HeartbeatInterval.Milliseconds(), 10)})); err != nil {
		return nil, fmt.Errorf("verify: broker: %w", err)
	}
	if w.pub, err = newPublisher(w.tl, w.cluster.ListenAddrs()); err != nil {
		return nil, err
	}
	var gates []int
	for _, f := range r.Faults {
		if consumerDefOf(f.Kind).moment == atEffect {
			gates = append(gates, f.At)
		}
	}
	if w.watch, err = openWatch(ctx, billingDSN, w.billing, w.tl, gates); err != nil {
		return nil, err
	}
	w.startConsumers(cfg, r, billingDSN)
	ok = true
	return w, nil
}

// database makes a fresh database (dsn, or a new one) with schema.
func database(ctx context.Context, cfg Config, schema, dsn string) (*pgxpool.Pool, error) {
	var err error
	if dsn == "" {
		if dsn, err = cfg.Server.EmptyDatabase(ctx); err != nil {
			return nil, err
		}
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	if _, err := pool.Exec(ctx, schema); err != nil {
		pool.Close()
		return nil, fmt.Errorf("verify: schema: %w", err)
	}
	return pool, nil
}

// startConsumers starts the round's instances and the harness's watchers.
func (w *consumerWorld) startConsumers(cfg Config, r Round, dsn string) {
	env := []string{EnvBillingDatabaseURL + "=" + dsn, EnvBillingBrokers + "=" + strings.Join(w.cluster.ListenAddrs(), ","),
		EnvBillingTopic + "=" + Topic, EnvBillingGroup + "=" + Group,
		EnvSessionTimeout + "=" + strconv.FormatInt(SessionTimeout.Milliseconds(), 10),
		EnvHeartbeatInterval + "=" + strconv.FormatInt(HeartbeatInterval.Milliseconds(), 10)}
	var names []string
	for i := 1; i <= r.Instances; i++ {
		names = append(names, fmt.Sprintf("billing-%d", i))
	}
	w.tl.Add("harness", 0, "round %s: %d instance(s) of %q in group %s, faults %v", r.Name, r.Instances, cfg.Consumer, Group, r.Faults)
	w.fleet = startFleet(cfg.Consumer, EnvBillingInstance, names, env, w.tl)
	w.group = newGroupView(w.cluster, w.fleet, w.tl, w.pub)
	w.watch.fleet = w.fleet
	w.drv = &consumerDriver{tl: w.tl, fleet: w.fleet, cluster: w.cluster, watch: w.watch, tap: w.tap, pub: w.pub, svc: w.svc, group: w.group,
		faults: r.Faults, fired: make([]bool, len(r.Faults)), instances: r.Instances, held: map[string]heldEvent{},
		fresh: map[int32]bool{}, rng: rand.New(rand.NewPCG(r.Seed, 0xa3e))}
	w.pub.mu.Lock()
	w.pub.sent = func(r Published) {
		w.drv.mu.Lock()
		delete(w.drv.fresh, r.Partition)
		w.drv.mu.Unlock()
	}
	w.pub.mu.Unlock()
	w.tap.mu.Lock()
	w.tap.owner, w.tap.hook = w.fleet.Owner, w.drv.onCommit
	w.tap.describe = func(p int32, off int64) string { r, _ := w.pub.at(p, off); return r.EventID }
	w.tap.mu.Unlock()
	ctx, stop := context.WithCancel(context.Background())
	w.stop = stop
	go w.group.watch(ctx)
	go w.watch.listen(ctx, dsn)
	go w.watch.gateLoop(ctx, w.drv.onEffect)
}

func (w *consumerWorld) close() {
	if w.fleet != nil {
		w.fleet.Shutdown(3 * time.Second)
	}
	if w.stop != nil {
		w.stop()
	}
	if w.pub != nil {
		w.pub.close()
	}
	if w.cluster != nil {
		w.cluster.Close()
	}
	for _, p := range []*pgxpool.Pool{w.billing, w.orders} {
		if p != nil {
			p.Close()
		}
	}
}

// play waits for the group, runs the workload with the events published
// as the round's faults say, waits until the group has read and applied
// everything and no fault is in progress, and ends the consumers. It
// reports whether the round went quiet in time, and if not, what was left.
func (w *consumerWorld) play(cfg Config, r Round) (bool, string) {
	ctx := context.Background()
	settled := func(s groupState) bool {
		return s.stable() && s.assigned() == Partitions || w.fleet.Broken() != nil || stopped(cfg.Stop)
	}
	if !w.group.waitFor(10*time.Second, settled) {
		w.tl.Add("harness", 0, "the group has not settled within 10 s (%s); the workload starts all the same", w.group.now())
	}
	commands := ConsumerWorkload(r.Seed, r.Commands+ConsumerMoreCommands)
	for i := 0; i < len(commands); i++ {
		more := i >= len(commands)-ConsumerMoreCommands
		if w.fleet.Broken() != nil || stopped(cfg.Stop) || more && !w.drv.wantsMore() {
			break
		}
		if i == len(commands)-ConsumerMoreCommands {
			w.tl.Add("harness", 0, "faults not reached (%v) or in progress: more commands, one each %s", w.drv.notReached(), 4*cfg.Pace)
		}
		w.handle(ctx, commands[i])
		w.handleInjected(ctx)
		if more {
			time.Sleep(3 * cfg.Pace)
		}
		time.Sleep(cfg.Pace)
	}
	w.handleInjected(ctx)
	w.drv.release()
	return w.quiesce(ctx, cfg)
}

// handleInjected runs the commands the round injects.
func (w *consumerWorld) handleInjected(ctx context.Context) {
	for _, c := range w.drv.injected() {
		w.handle(ctx, c)
	}
}

// handle runs one command and publishes the events it committed.
func (w *consumerWorld) handle(ctx context.Context, c orders.Command) {
	before := len(w.svc.Committed())
	if err := w.svc.Handle(ctx, c); err != nil {
		w.tl.Add("service", 0, "%v", err)
	}
	for _, e := range w.svc.Committed()[before:] {
		if err := w.drv.publish(e); err != nil {
			w.tl.Add("harness", 0, "%v", err)
		}
	}
}
