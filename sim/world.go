package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/sim/check"
	"outboxlab/store"
	"outboxlab/variant"
)

// Process roles; they are also the first part of crash point ids.
const (
	roleService  = "service"
	roleRelay    = "relay"
	roleConsumer = "consumer"
)

// proc is one process of the world: its role, whether it is alive, and its
// volatile instance (rebuilt on every restart).
type proc struct {
	name, role  string
	alive       bool
	incarnation int
	restartAt   time.Time
	// task is set while an activity is in progress on worker, suspended at
	// a boundary. yield suspends it (set while the activity runs).
	task   bool
	worker *worker
	yield  func(struct{}) bool
	// stalledUntil: a stalled process is not scheduled before this time,
	// and then resumes exactly where it stood; frozen is the point it
	// stalled at, until it moves again (for the trace's resume event).
	stalledUntil time.Time
	frozen       string // the point it froze at, "" when it is not frozen
	// wake is the relay's last answer to NextWake (see wakeOf), and
	// steps counts the steps it ended, in every incarnation.
	wake  wake
	steps int
	// skew is how far the process's own clock runs ahead (or behind).
	skew time.Duration
	// started is when this incarnation started; failedSends counts the
	// publishes in a row that the broker refused this incarnation, and
	// lastFailedSend is when the step that saw the last of them ended
	// (sendFailed: the step in progress saw one) (see latency.go).
	started        time.Time
	lastTried      broker.Target // the message of its last publish attempt
	failedSends    int
	lastFailedSend time.Time
	sendFailed     bool
	// lastStep is when the relay's last step ended, and lastDid whether
	// it did something (see Config.Poll).
	lastStep time.Time
	lastDid  bool
	// erred is when a step of this incarnation last ended with an error:
	// the claims it left wait for their leases by right.
	erred time.Time
	// recovering is set while a relay's task is its recovery (Recover,
	// run when it starts), not a step; recoverFailed when this
	// incarnation's recovery ended with an error (its earlier claims then
	// wait for their leases by right).
	recovering    bool
	recoverFailed bool
	// crashedAt is the crash point (or "kill") of its last crash, and
	// panics counts the panics it died of in a loop (see checkPanicked).
	crashedAt string
	panics    int

	service  variant.Service
	relay    variant.Relay
	consumer variant.Consumer
	// step is this incarnation's relay.Step or consumer.Step, bound once
	// when it starts: an activity begins with it, and binding a method
	// value at every step would allocate at every step.
	step func() (bool, error)
}

// world is everything one run owns.
type world struct {
	steps     int // every phase's, against Config.StepBudget
	cfg       Config
	clock     *Clock
	rng       *rand.Rand
	orderDB   *store.DB
	billingDB *store.DB
	broker    *broker.Broker
	procs     []*proc // service, relay-1..n, billing: a fixed order

	crashing bool              // crashes may fire (phase run only)
	points   []*boundaryPoints // every boundary crossed so far, in order of first crossing
	plan     []Crash           // crashes still to fire, in order
	fired    []FiredCrash
	stalls   []Fault          // stalls still to happen
	stalled  int              // stalls that happened
	kills    []Fault          // kills still to happen, in time order
	killed   int              // kills that happened
	failures []plannedFailure // commit failures still to happen
	failed   int              // commit failures that happened
	// replaysAt are the operator's replays during the run still to
	// happen, in time order (FaultOperatorReplay).
	replaysAt []time.Duration
	reported  int // commit failures a process reported or tried again (see FailureReported)
	// unhandled are the errors relays and consumers returned that they
	// should have handled themselves (see Result.Unhandled).
	unhandled []string
	// swallowed are the crashes an activity did not hand back, panics
	// the panics of activities (see Missteps).
	swallowed, panics []string
	// delays are the messages that waited for no reason, the first time
	// each did (see latency.go); delayed marks them by message id.
	delays []check.Delay
	// tries are the publish attempts through the processes' gates, one
	// message each, in order (check.Try).
	tries []check.Try
	// relayDown counts the relays' publish attempts the broker refused
	// because it was down: a service that publishes itself makes one a
	// command, which its client sees fail; the relays' pause is what the
	// down budget bounds (check.World.WhileDown).
	relayDown int
	delayed   map[string]bool
	// unreplayed are the dead letters a selective replay left dead.
	unreplayed []variant.DeadLetter
	// acknowledged are the order ids of the commands the service answered
	// with success, in the order answered.
	acknowledged []string

	commands int // in the workload (see stormCap)
	// spun is set when a phase used up its steps (maxSteps, Config.StepBudget).
	spun bool
	// relayPolicy and consumerPolicy are the policies the run's budgets
	// come from: the variant's declared ones (see budget.go).
	relayPolicy    variant.RelayPolicy
	consumerPolicy variant.ConsumerPolicy
	// lastRelay and lastConsumer are the last relay and consumer built:
	// the ports the lab reads dead letters and parked messages through
	// (see deadletters.go).
	lastRelay    variant.Relay
	lastConsumer variant.Consumer
	// parks counts billing's attempts at the messages it parked.
	parks billingParks
	// ops is what the operator's work after quiesce leaves for the checks.
	ops operatorLog
	// running is the process whose code runs now, "" for the simulator's
	// own: the databases record it with every transaction (store's
	// SetSession), so that the checker knows who committed a write
	// whatever name the writer gave.
	running string
	// claims are the outbox rows' claims by the order database's log,
	// read up to commit claimsSeen (see claimOf).
	claims     map[string]claim
	claimsSeen uint64
	// log is what the order database's commit log said so far, read up
	// to the last commit follow fed.
	log orderLog
	// ledgerRead is billing's ledger as last read, after billing's
	// commit seq (see billingLedger).
	ledgerRead struct {
		ledger []billing.Entry
		seq    uint64
		ok     bool
	}
	idsGiven int // of Config.IDs, handed out
	trace    []Event
	// outages are the broker outages as the trace tells them.
	outages []outageWindow
	seen    mark // how far the trace has described the durable systems
	// brokerLog counts, per message, what the broker did with it, by
	// subscriber and kind (for Row; only when tracing).
	brokerLog map[string][]brokerCount
	ready     []*proc // scratch: the processes that may move this tick
}

// FiredCrash is a planned crash that happened.
type FiredCrash struct {
	Crash
	Process string
	At      time.Duration
}

func newWorld(cfg Config) (*world, error) {
	w := &world{
		cfg:            cfg,
		clock:          NewClock(),
		rng:            rand.New(rand.NewPCG(cfg.Seed, 0x6f7574626f786c62)),
		orderDB:        store.New("orders"),
		billingDB:      store.New("billing"),
		plan:           append([]Crash(nil), cfg.Crashes...),
		commands:       len(cfg.Workload),
		crashing:       true,
		relayPolicy:    cfg.Variant.RelayPolicy(),
		consumerPolicy: cfg.Variant.ConsumerPolicy(),
	}
	// The checker reads the order database's history: the committed
	// changes with their content, and the safety properties.
	w.orderDB.KeepLog()
	w.orderDB.SetClock(w.clock.Now) // the true time, whatever a process's clock says
	// Billing's log tells the situations billing went through, and the
	// trace describes its commits.
	w.billingDB.KeepLog()
	w.billingDB.SetClock(w.clock.Now) // the metrics view samples it over time
	session := func() string { return w.running }
	w.orderDB.SetSession(session)
	w.billingDB.SetSession(session)
	w.broker = broker.New(w.clock)
	w.broker.KeepHistory(cfg.Trace) // the trace is its only reader
	if err := w.broker.Subscribe(w.subscription()); err != nil {
		return nil, err
	}
	if sub := cfg.Variant.RelaySubscription; sub != "" {
		if err := w.broker.Subscribe(sub); err != nil {
			return nil, fmt.Errorf("sim: %s: %w", cfg.Variant.Name, err)
		}
	}
	if err := cfg.Variant.Install(w.orderDB, w.billingDB); err != nil {
		return nil, fmt.Errorf("sim: install %s: %w", cfg.Variant.Name, err)
	}
	if err := w.installHistory(cfg.History); err != nil {
		return nil, err
	}
	for _, p := range cfg.processes() {
		w.procs = append(w.procs, &proc{name: p.name, role: p.role})
	}
	for _, f := range cfg.Faults {
		w.installFault(f)
	}
	return w, nil
}

// subscription is the broker subscription the run's consumer reads: the
// consumer process's name ("billing", the insurance story's "payments").
func (w *world) subscription() string { return w.cfg.Variant.ConsumerProcess() }

// NewID returns the next of the run's given ids (Config.IDs), then draws
// message ids from the run's seed: "e-" and 16 hex digits.
func (w *world) NewID() string {
	if w.idsGiven < len(w.cfg.IDs) {
		w.idsGiven++
		return w.cfg.IDs[w.idsGiven-1]
	}
	const digits = "0123456789abcdef"
	id := [18]byte{'e', '-'}
	for i, v := len(id)-1, w.rng.Uint64(); i >= 2; i, v = i-1, v>>4 {
		id[i] = digits[v&0xF]
	}
	return string(id[:])
}

// clockOf returns p's own clock: the true time, or ahead or behind it by a
// clock-skew fault.
func (w *world) clockOf(p *proc) variant.Clock {
	for _, f := range w.cfg.Faults {
		if f.Kind == FaultClockSkew && f.Process == p.name {
			p.skew = f.Skew
			return skewedClock{w.clock, f.Skew}
		}
	}
	return w.clock
}

// on runs f as process p: what f commits, the databases record as p's.
func (w *world) on(p *proc, f func()) {
	prev := w.running
	w.running = p.name
	f()
	w.running = prev
}

// start builds a new incarnation of p: a relay begins its recovery as its
// first task, a consumer polls once.
func (w *world) start(p *proc) error {
	prev := w.running
	w.running = p.name
	defer func() { w.running = prev }()
	p.incarnation++
	p.alive = true
	p.started, p.failedSends, p.sendFailed, p.erred, p.recoverFailed = w.clock.Now(), 0, false, time.Time{}, false
	p.lastStep, p.lastDid = time.Time{}, false
	env := variant.Env{
		Owner: p.name, OrderDB: w.orderDB, BillingDB: w.billingDB, Broker: w.broker,
		Gate: gate{w: w, p: p, incarnation: p.incarnation}, Clock: w.clockOf(p), DBClock: w.clock, IDs: w, Rand: w.rng,
	}
	v := w.cfg.Variant
	var err error
	switch p.role {
	case roleService:
		p.service, err = v.NewService(env)
	case roleRelay:
		p.relay, err = v.NewRelay(env)
		if err == nil {
			w.lastRelay, p.step = p.relay, p.relay.Step
			// Its recovery is its first task: another process may commit
			// between what it reads and what it commits, as in any step.
			relay := p.relay
			p.recovering = true
			w.begin(p, func() (bool, error) { return true, relay.Recover() })
		}
	case roleConsumer:
		p.consumer, err = v.NewConsumer(env)
		if err == nil {
			w.lastConsumer, p.step = p.consumer, p.consumer.Step
			w.pollEmpty(p)
		}
	}
	if err != nil {
		return fmt.Errorf("sim: start %s of %s: %w", p.name, v.Name, err)
	}
	return nil
}

// pollEmpty has a consumer that just started poll once when nothing is
// there for it: a consumer polls whether or not a delivery waits, and an
// empty poll must do nothing. Anything else it does is an unhandled error
// (see Result.Unhandled).
func (w *world) pollEmpty(p *proc) {
	if at, ok := w.broker.NextAvailable(w.subscription()); ok && !at.After(w.clock.Now()) {
		return
	}
	did, err := p.consumer.Step()
	switch {
	case err != nil && !errors.Is(err, effect.ErrCrashed):
		w.unhandled = append(w.unhandled, p.name+": an empty poll: "+err.Error())
	case did:
		w.unhandled = append(w.unhandled, p.name+": an empty poll reported a delivery")
	}
}
