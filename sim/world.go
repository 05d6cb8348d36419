package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/lab/check"
	"outboxlab/lab/variant"
	"outboxlab/store"
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
	// run when it starts), not a step.
	recovering bool
	// crashedAt is the crash point (or "kill") of its last crash, and
	// panics counts the panics it died of in a loop (see checkPanicked).
	crashedAt string
	panics    int

	service  variant.Service
	relay    variant.Relay
	consumer variant.Consumer
}

// world is everything one run owns.
type world struct {
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
	stalls   []Fault // stalls still to happen
	stalled  int     // stalls that happened
	kills    []Fault // kills still to happen, in time order
	killed   int     // kills that happened
	failures []Fault // commit failures still to happen
	failed   int     // commit failures that happened
	reported int     // commit failures a process reported (see FailureReported)
	// unhandled are the errors relays and consumers returned that they
	// should have handled themselves (see Result.Unhandled).
	unhandled []string
	// swallowed are the crashes an activity did not hand back, panics
	// the panics of activities (see Missteps).
	swallowed, panics []string
	// delays are the messages that waited for no reason, the first time
	// each did (see latency.go); delayed marks them by message id.
	delays  []check.Delay
	delayed map[string]bool
	// unreplayed are the dead letters a selective replay left dead.
	unreplayed []check.DeadLetter
	// acknowledged are the order ids of the commands the service answered
	// with success, in the order answered.
	acknowledged []string

	commands int // in the workload (see stormCap)
	// relayPolicy and consumerPolicy are the policies the run's budgets
	// come from: the variant's declared ones (see budget.go).
	relayPolicy    check.RelayPolicy
	consumerPolicy check.ConsumerPolicy
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
	idsGiven   int // of Config.IDs, handed out
	trace      []Event
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

func (w *world) installFault(f Fault) {
	switch f.Kind {
	case FaultOutage:
		w.broker.Outage(Epoch.Add(f.From), Epoch.Add(f.From+f.For))
		w.outages = append(w.outages, outageWindow{from: f.From, to: f.From + f.For})
	case FaultTimeoutStored:
		w.broker.TimeoutStored(f.Target)
	case FaultTimeoutDropped:
		w.broker.TimeoutDropped(f.Target)
	case FaultDuplicate:
		w.broker.Duplicate(f.Target)
	case FaultReorder:
		w.broker.Reorder(f.Target)
	case FaultPoison:
		w.broker.Poison(f.Target)
	case FaultUnknownVersion:
		w.broker.NewerVersion(f.Target)
	case FaultUnknownType:
		w.broker.UnknownType(f.Target)
	case FaultWrongCurrency:
		w.broker.WrongCurrency(f.Target)
	case FaultCorruptOnce:
		w.broker.CorruptOnce(f.Target)
	case FaultDelay:
		w.broker.Delay(f.Target, f.For)
	case FaultRejected:
		w.broker.Reject(f.Target)
	case FaultExtraField:
		w.broker.ExtraField(f.Target)
	case FaultStall:
		w.stalls = append(w.stalls, f)
	case FaultSlowCommit:
		f.Point = "service.before-commit"
		w.stalls = append(w.stalls, f)
	case FaultCommitFailure:
		w.failures = append(w.failures, f)
	case FaultKill:
		i := len(w.kills)
		for i > 0 && w.kills[i-1].From > f.From {
			i--
		}
		w.kills = slices.Insert(w.kills, i, f)
	}
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

// gate is the effect.Gate of one incarnation of one process.
type gate struct {
	w           *world
	p           *proc
	incarnation int
}

// Cross implements effect.Gate: it may crash the process before or after
// the effect, and records the crossing in the trace.
func (g gate) Cross(b effect.Boundary, do func() error) error {
	w, p := g.w, g.p
	if !p.alive || p.incarnation != g.incarnation {
		return effect.ErrCrashed // a dead process has no effects
	}
	// A scheduling point: any other process may run before this effect.
	if p.yield != nil && !p.yield(struct{}{}) {
		return effect.ErrCrashed // the run ended while it waited
	}
	points := w.pointsOf(b)
	if w.stallHere(p, points.before.id) && !p.yield(struct{}{}) {
		return effect.ErrCrashed
	}
	if w.crashHere(p, &points.before) {
		return effect.ErrCrashed
	}
	var err error
	if w.failHere(points) {
		err = ErrCommitFailed
	} else {
		calls, refused := w.broker.Publishes()
		err = do()
		w.countSends(p, calls, refused)
	}
	w.clock.Set(w.clock.Now().Add(w.effectCost()))
	if w.cfg.Trace {
		result := "ok"
		switch {
		case errors.Is(err, store.ErrConflict):
			// First committer wins: the expected end of a race, not a fault.
			result = "refused, nothing written: another transaction committed this row first"
		case err != nil:
			result = "error: " + err.Error()
		}
		changes, ids, rows, actions := w.changesSince(w.seen)
		w.seen = w.mark()
		w.record(Event{Process: p.name, Kind: EventEffect, Action: b.String(), Result: result, Messages: ids, Changes: changes, Rows: rows,
			Broker: slices.Clone(actions)})
	}
	if err != nil {
		return err
	}
	if w.crashHere(p, &points.after) {
		return effect.ErrCrashed
	}
	return nil
}

// failHere counts an effect at bp's boundary and reports whether a
// commit-failure fault fails this one.
func (w *world) failHere(bp *boundaryPoints) bool {
	if !w.crashing || len(w.failures) == 0 {
		return false
	}
	bp.performed++
	for i, f := range w.failures {
		if f.Point == bp.b.String() && f.Occurrence == bp.performed {
			w.failures = slices.Delete(w.failures, i, i+1)
			w.failed++
			return true
		}
	}
	return false
}

// stallHere freezes p if a stall is planned for it at point: it is not
// scheduled again before the stall ends. Only a process inside a task can
// stall (a recovery runs at once).
func (w *world) stallHere(p *proc, point string) bool {
	if p.yield == nil || !w.crashing {
		return false
	}
	for i, f := range w.stalls {
		if f.Process != p.name || f.Point != point {
			continue
		}
		w.stalls = append(w.stalls[:i:i], w.stalls[i+1:]...)
		w.stalled++
		p.stalledUntil, p.frozen = w.clock.Now().Add(f.For), point
		if w.cfg.Trace {
			w.record(Event{Process: p.name, Kind: EventStall, Action: point, Result: "stall",
				Changes: []string{fmt.Sprintf("frozen until %s, holding what it holds", FormatTime(p.stalledUntil.Sub(Epoch)))}})
		}
		return true
	}
	return false
}

// effectCost draws how long an effect takes: EffectCost on average, between
// half and one and a half times it.
func (w *world) effectCost() time.Duration {
	if w.cfg.EffectCost <= 0 {
		return 0
	}
	return w.cfg.EffectCost/2 + time.Duration(w.rng.Int64N(int64(w.cfg.EffectCost)))
}

// crashPoint is one crash point of the run and how often it was reached.
type crashPoint struct {
	id      string // b.Before() or b.After() of its boundary
	reached int    // while crashes may fire
	counted int    // since the previous planned crash fired
}

// boundaryPoints are the two crash points of a boundary.
type boundaryPoints struct {
	b             effect.Boundary
	before, after crashPoint
	// performed counts the effects performed here while crashes could
	// fire (what a commit-failure's Occurrence counts).
	performed int
}

// pointsOf returns b's crash points, made at its first crossing, so that a
// crossing builds no string. A run crosses a dozen boundaries at most: a
// linear search finds them.
func (w *world) pointsOf(b effect.Boundary) *boundaryPoints {
	for _, bp := range w.points {
		if bp.b == b {
			return bp
		}
	}
	bp := &boundaryPoints{b: b, before: crashPoint{id: b.Before()}, after: crashPoint{id: b.After()}}
	w.points = append(w.points, bp)
	return bp
}

// reached returns how often each crash point was reached while crashes
// could fire, by point id.
func (w *world) reached() map[string]int {
	out := map[string]int{}
	for _, bp := range w.points {
		for _, pt := range []*crashPoint{&bp.before, &bp.after} {
			if pt.reached > 0 {
				out[pt.id] = pt.reached
			}
		}
	}
	return out
}

// crashHere counts that pt was reached and crashes p if the plan says so.
func (w *world) crashHere(p *proc, pt *crashPoint) bool {
	if !w.crashing {
		return false
	}
	pt.reached++
	if len(w.plan) == 0 {
		return false
	}
	pt.counted++
	next := w.plan[0]
	if next.Point != pt.id || pt.counted != next.Occurrence {
		return false
	}
	w.plan = w.plan[1:]
	for _, bp := range w.points {
		bp.before.counted, bp.after.counted = 0, 0
	}
	w.fired = append(w.fired, FiredCrash{Crash: next, Process: p.name, At: w.clock.Since()})
	down := time.Duration(0)
	if next.ForGood {
		down = ForGood
	}
	w.crash(p, pt.id, down)
	return true
}

// crash kills p for down (RestartDelay if 0): its open transactions are
// aborted, its unacknowledged deliveries go back to the broker, its
// volatile state is gone.
func (w *world) crash(p *proc, point string, down time.Duration) {
	if down <= 0 {
		down = w.cfg.RestartDelay
	}
	p.alive = false
	p.crashedAt = point
	p.stalledUntil, p.frozen = time.Time{}, "" // a freeze ends with the process
	p.service, p.relay, p.consumer = nil, nil, nil
	p.restartAt = w.clock.Now().Add(down)
	aborted := w.orderDB.Crash(p.name) + w.billingDB.Crash(p.name)
	switch {
	case p.role == roleConsumer:
		w.broker.Disconnect(w.subscription())
	case p.role == roleRelay && w.cfg.Variant.RelaySubscription != "":
		w.broker.Disconnect(w.cfg.Variant.RelaySubscription)
	}
	if w.cfg.Trace {
		w.record(Event{Process: p.name, Kind: EventCrash, Action: point, Result: "crash",
			Changes: []string{fmt.Sprintf("%d open transaction(s) aborted; restart at %s", aborted, FormatTime(p.restartAt.Sub(Epoch)))}})
	}
}

// kill crashes the named process wherever it stands, if it is alive, for
// down (RestartDelay if 0): a
// task it was in the middle of returns from its boundary with
// effect.ErrCrashed and unwinds.
func (w *world) kill(name string, down time.Duration) {
	for _, p := range w.procs {
		if p.name != name || !p.alive {
			continue
		}
		w.killed++
		w.crash(p, "kill", down)
		if p.task {
			stopWorker(p)
		}
	}
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
	p.started, p.failedSends, p.sendFailed, p.erred = w.clock.Now(), 0, false, time.Time{}
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
			w.lastRelay = p.relay
			// Its recovery is its first task: another process may commit
			// between what it reads and what it commits, as in any step.
			relay := p.relay
			p.recovering = true
			w.begin(p, func() (bool, error) { return true, relay.Recover() })
		}
	case roleConsumer:
		p.consumer, err = v.NewConsumer(env)
		if err == nil {
			w.lastConsumer = p.consumer
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

func (w *world) record(s Event) {
	s.At = w.clock.Since()
	// The outages that began or ended before this event, or at its time
	// (a phase comes first).
	w.traceOutages(func(at time.Duration) bool { return at < s.At || at == s.At && s.Kind != EventPhase })
	w.trace = append(w.trace, s)
}

// outageWindow is a broker outage as the trace tells it: its beginning
// and end are events at their planned times, recorded with the first
// event of a process at or after them.
type outageWindow struct {
	from, to     time.Duration
	begun, ended bool
}

// traceOutages records every beginning and end of an outage whose time
// due says is due, in time order.
func (w *world) traceOutages(due func(at time.Duration) bool) {
	for {
		var next *outageWindow
		var at time.Duration
		for i := range w.outages {
			o := &w.outages[i]
			switch {
			case !o.begun && due(o.from) && (next == nil || o.from < at):
				next, at = o, o.from
			case o.begun && !o.ended && due(o.to) && (next == nil || o.to < at):
				next, at = o, o.to
			}
		}
		if next == nil {
			return
		}
		if !next.begun {
			next.begun = true
			w.trace = append(w.trace, Event{At: at, Process: "broker", Kind: EventFault, Action: string(FaultOutage),
				Changes: []string{"down until " + FormatTime(next.to) + ": every publish refused, nothing delivered"}})
			continue
		}
		next.ended = true
		w.trace = append(w.trace, Event{At: at, Process: "broker", Kind: EventFault, Action: string(FaultOutage) + " over", Changes: []string{"up again"}})
	}
}

// healOutages ends the trace's outages at the quiesce's heal: one in
// progress ends now, one planned for later never begins.
func (w *world) healOutages() {
	if !w.cfg.Trace {
		return
	}
	now := w.clock.Since()
	w.traceOutages(func(at time.Duration) bool { return at <= now })
	for i := range w.outages {
		o := &w.outages[i]
		if o.begun && !o.ended {
			w.trace = append(w.trace, Event{At: now, Process: "broker", Kind: EventFault, Action: string(FaultOutage) + " over",
				Changes: []string{"up again: healed for the quiesce"}})
		}
		o.begun, o.ended = true, true
	}
}

// resumeTrace records that p moves again after a stall.
func (w *world) resumeTrace(p *proc) {
	if p.frozen == "" {
		return
	}
	if w.cfg.Trace {
		w.record(Event{Process: p.name, Kind: EventResume, Action: p.frozen, Changes: []string{"moves on where it stood"}})
	}
	p.frozen = ""
}
