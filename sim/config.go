package sim

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"outboxlab/broker"
	"outboxlab/orders"
	"outboxlab/variant"
)

// Command is one use case call of the workload at a virtual time.
type Command struct {
	// At is the time since Epoch at which the client sends the command.
	At time.Duration
	orders.Command
}

// Crash plans one crash: at the Occurrence-th time (1, 2, ...) Point is
// reached. Occurrences of a second crash are counted from the moment the
// first one fired, so {P, 1}, {Q, 1} means "crash at P, then at the next Q".
type Crash struct {
	Point      string
	Occurrence int
	// ForGood says the process does not come back before the check (its
	// host is gone); otherwise it restarts RestartDelay later.
	ForGood bool
}

func (c Crash) String() string {
	if c.ForGood {
		return fmt.Sprintf("%s#%d for good", c.Point, c.Occurrence)
	}
	return fmt.Sprintf("%s#%d", c.Point, c.Occurrence)
}

// ForGood is how long a process lost for good stays down: longer than any
// run.
const ForGood = 1000 * time.Hour

// FaultKind names a broker fault, as it appears as a matrix row.
type FaultKind string

// The broker faults of the matrix.
const (
	FaultOutage FaultKind = "broker-outage"
	// FaultTimeoutStored and FaultTimeoutDropped are the two branches of a
	// publish timeout: the sender gets the same error in both, but the
	// broker stored the message in the first and nothing in the second.
	FaultTimeoutStored  FaultKind = "publish-timeout-stored"
	FaultTimeoutDropped FaultKind = "publish-timeout-dropped"
	FaultDuplicate      FaultKind = "duplicate-delivery"
	FaultReorder        FaultKind = "reorder"
	FaultPoison         FaultKind = "poison"
	// FaultUnknownVersion and FaultUnknownType deliver the target in a
	// version, or as a type, billing does not know yet (a producer
	// deployed ahead of it) until the operator's fix: billing must put it
	// aside at once, not retry it, and apply it when replayed.
	FaultUnknownVersion FaultKind = "unknown-version"
	FaultUnknownType    FaultKind = "unknown-type"
	// FaultWrongCurrency delivers the target, an amendment, with its
	// amount in another currency than its order's (a producer's mapping
	// bug) until the operator's fix: billing reads it and cannot apply
	// it, and must put it aside as a dead letter after its attempts, also
	// when it fails only once its turn came after waiting parked.
	FaultWrongCurrency FaultKind = "wrong-currency"
	// FaultCorruptOnce corrupts the target's next delivery only (a
	// transient fault): billing cannot read it that time and reads it the
	// next. Putting it aside as a dead letter is giving up too early.
	FaultCorruptOnce FaultKind = "corrupt-once"
	FaultRejected    FaultKind = "rejected"
	// FaultExtraField delivers the target with a field its consumer does
	// not know yet, type and version unchanged: a compatible extension
	// (chapter 000 section 9), which the consumer must apply as it is. Not
	// a matrix row: a story's.
	FaultExtraField FaultKind = "extra-field"
	// FaultStall freezes a process (a GC pause, a frozen VM) when it first
	// reaches a crash point's place, before the effect, for For; then it
	// resumes exactly where it stood, holding what it held.
	FaultStall FaultKind = "stall"
	// FaultSlowCommit keeps a service instance's transaction open for For
	// just before its commit (the first time it gets there), with its rows
	// written and its ids drawn, while other instances commit: the
	// commit-visibility gap. It is a stall at service.before-commit.
	FaultSlowCommit FaultKind = "slow-commit"
	// FaultClockSkew sets a process's own clock Skew ahead (or behind, if
	// negative) of the true time for the whole run. The database's clock
	// (variant.Env.DBClock) stays true.
	FaultClockSkew FaultKind = "clock-skew"
	// FaultKill kills a process at From, wherever it stands (a deploy, an
	// OOM kill, a host lost), in the run phase; it restarts For later
	// (RestartDelay if For is 0). A For beyond the run's horizon is a host
	// that never comes back before the check.
	FaultKill FaultKind = "kill"
	// FaultDelay is not a matrix row: scenarios use it to open a gap.
	FaultDelay FaultKind = "delay"
	// FaultCommitFailure fails a commit: the Occurrence-th time any process
	// commits at the boundary Point names ("relay.claim",
	// "consumer.commit"), in the run phase, the commit does not reach the
	// database (a connection lost before it got there): nothing is
	// committed, and the process gets ErrCommitFailed. Exploration draws
	// it; it is not a matrix row.
	FaultCommitFailure FaultKind = "commit-failure"
)

// Fault plans one broker fault.
type Fault struct {
	Kind FaultKind
	// Target names the message, for every kind but broker-outage.
	Target broker.Target
	// From and For give the outage window, as time since Epoch; For is
	// also the delay of a delay fault and the length of a stall, From the
	// time of a kill.
	From, For time.Duration
	// Skew is how far a clock-skew fault sets the process's clock ahead
	// (positive) or behind (negative).
	Skew time.Duration
	// Process and Point say who stalls, and where: "relay-1" at
	// "relay.before-send" (the first time it gets there); Process also
	// says who is killed. For a commit-failure, Point is the boundary
	// ("relay.claim") and Occurrence which of its commits fails (1 = the
	// first).
	Process, Point string
	Occurrence     int
	// Burst, for a commit-failure, is how many commits in a row fail from
	// the Occurrence-th (0 or 1: that one alone): a database that flaps.
	// With Target set, a commit-failure counts and fails only the
	// commits at Point about that message: billing's while it holds the
	// message's delivery, a relay's after it last tried to publish it.
	Burst int
}

// String is how a schedule and a replay name f.
func (f Fault) String() string {
	if spec, ok := f.Kind.Spec(); ok && spec.describe != nil {
		return spec.describe(f)
	}
	return fmt.Sprintf("%s %s", f.Kind, f.Target)
}

// Config is one run.
type Config struct {
	Variant  variant.Variant
	Workload []Command
	// Seed fixes every random choice: message ids, interleavings, jitter.
	Seed    uint64
	Crashes []Crash
	Faults  []Fault
	// Relays is how many relay instances run side by side (>= 1).
	Relays int
	// Services is how many instances of the order service take the
	// workload's commands (>= 1): a command goes to an instance that is
	// not busy with another. One is "service"; two are "service-1" and
	// "service-2", and a slow commit of one lets the other commit first.
	Services int
	// RestartDelay is how long a crashed process stays down.
	RestartDelay time.Duration
	// EffectCost is the virtual time an effect takes on average (a commit,
	// a publish, an ack): each takes between half and one and a half times
	// it, drawn from the seed, so that timelines show the order of events.
	EffectCost time.Duration
	// Horizon bounds each phase in virtual time: a phase still busy after
	// it ends the run as STUCK.
	Horizon time.Duration
	// StepBudget bounds the steps of the whole run, every phase
	// together; 0 leaves only the bound of each phase (12,000 steps and
	// 10 more a command of the workload). A run that spends it ends as
	// STUCK. The mutation analysis sets it (lab/verdict's
	// Options.StepBudget), so that a mutant that spins ends within
	// milliseconds, not after a phase's whole bound in every phase.
	StepBudget int
	// Trace records every event; without it only the verdict is computed.
	Trace bool
	// Cleanups are the times (since Epoch) at which the first live relay
	// runs its retention cleanup, if it has one (see Cleaner).
	Cleanups []time.Duration
	// Operations are the operator's work after quiesce, in order (see
	// Operation); nil is DefaultOperations. Exactly one is OpFix.
	Operations []Operation
	// Consumers is how many instances of billing read its one subscription
	// side by side (0 means one): two that get copies of one message at
	// once race on the inbox's unique key (chapter 003). One is
	// "billing"; two are "billing-1" and "billing-2". A crash of one would
	// take back the other's deliveries too (the broker keeps one
	// connection per subscription), so a run with several has no
	// crashes or kills of billing.
	Consumers int
	// History is how many SENT messages the outbox holds when the run
	// begins, sent over the year before and never cleaned up (chapter
	// 004's "Wachsende Outbox": 2,000 a day are about 730,000 a year), at
	// most MaxHistory. They are in the outbox table only: no order, no
	// broker, no billing has them. A variant without an outbox table
	// cannot have them.
	History int
	// Resends are an operator's resends of sent messages from the outbox,
	// in time order (chapter 003: seven days of retention are a replay
	// window; chapter 000: "Eine vermeintlich erledigte Nachricht landet
	// nach Stunden wieder im System").
	Resends []Resend
	// IDs are the message ids the run hands out first, in order (a story
	// that tells chapter 004's e-5531); the ids after them are drawn from
	// the seed.
	IDs []string
	// Poll drives every relay as its production loop does (outbox's
	// Relay.Run): a step an idle poll after the last one, a busy poll
	// after one that did something (outbox.Config's IdlePoll and
	// BusyPoll), whatever NextWake says; NextWake then only tells whether
	// a relay has anything left at all. Without Poll a relay is woken when
	// its NextWake says, which skips the polls in vain.
	Poll bool
}

// Resend is an operator publishing a message again, at At, from its row
// in the outbox: the message of Target, under its own id, if the outbox
// still holds it.
type Resend struct {
	At     time.Duration
	Target broker.Target
}

// MaxHistory bounds Config.History: a million rows take seconds to build
// and about 300 MB.
const MaxHistory = 1_000_000

// DefaultConfig returns a configuration for v and workload with one relay,
// a 5 s restart delay, 10 ms per effect on average and a 6 h horizon.
func DefaultConfig(v variant.Variant, workload []Command, seed uint64) Config {
	return Config{
		Variant:      v,
		Workload:     workload,
		Seed:         seed,
		Relays:       1,
		Services:     1,
		RestartDelay: 5 * time.Second,
		EffectCost:   10 * time.Millisecond,
		Horizon:      6 * time.Hour,
		Trace:        true,
	}
}

// Processes returns the names of the run's processes, as its trace, its
// faults and its replay commands name them: the service ("service", or
// "service-1", "service-2", ... for several), the relays ("relay-1", ...,
// or the variant's RelayRole) and billing ("billing", or "billing-1", ...).
func (c Config) Processes() []string {
	var names []string
	for _, p := range c.processes() {
		names = append(names, p.name)
	}
	return names
}

// processSpec is a process of a run before it is built.
type processSpec struct {
	name string
	role string
}

func (c Config) processes() []processSpec {
	var out []processSpec
	service := c.Variant.ServiceProcess()
	if c.Services == 1 {
		out = append(out, processSpec{service, roleService})
	} else {
		for i := 1; i <= c.Services; i++ {
			out = append(out, processSpec{fmt.Sprintf("%s-%d", service, i), roleService})
		}
	}
	if c.Variant.NewRelay != nil {
		for i := 1; i <= c.Relays; i++ {
			out = append(out, processSpec{fmt.Sprintf("%s-%d", c.Variant.RelayRoleName(), i), roleRelay})
		}
	}
	consumer := c.Variant.ConsumerProcess()
	if c.Consumers <= 1 {
		return append(out, processSpec{consumer, roleConsumer})
	}
	for i := 1; i <= c.Consumers; i++ {
		out = append(out, processSpec{fmt.Sprintf("%s-%d", consumer, i), roleConsumer})
	}
	return out
}

// Validate returns an error naming every field that is out of range.
func (c Config) Validate() error {
	var errs []error
	if err := c.Variant.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.Services < 1 {
		errs = append(errs, fmt.Errorf("sim: Services = %d, want >= 1", c.Services))
	}
	errs = append(errs, c.validateConsumers()...)
	if c.History < 0 || c.History > MaxHistory {
		errs = append(errs, fmt.Errorf("sim: History = %d, want 0 to %d", c.History, MaxHistory))
	}
	if c.Relays < 1 {
		errs = append(errs, fmt.Errorf("sim: Relays = %d, want >= 1", c.Relays))
	}
	if m := c.Variant.MaxServices; m > 0 && c.Services > m {
		errs = append(errs, fmt.Errorf("sim: Services = %d, but %s supports at most %d (see Variant.MaxServices)", c.Services, c.Variant.Name, m))
	}
	if m := c.Variant.MaxRelays; m > 0 && c.Relays > m {
		errs = append(errs, fmt.Errorf("sim: Relays = %d, but %s supports at most %d (see Variant.MaxRelays)", c.Relays, c.Variant.Name, m))
	}
	if c.RestartDelay <= 0 {
		errs = append(errs, fmt.Errorf("sim: RestartDelay = %s, want > 0", c.RestartDelay))
	}
	if c.EffectCost < 0 {
		errs = append(errs, fmt.Errorf("sim: EffectCost = %s, want >= 0", c.EffectCost))
	}
	if c.Horizon <= 0 {
		errs = append(errs, fmt.Errorf("sim: Horizon = %s, want > 0", c.Horizon))
	}
	if c.StepBudget < 0 {
		errs = append(errs, fmt.Errorf("sim: StepBudget = %d, want >= 0 (0: no budget for the whole run)", c.StepBudget))
	}
	for _, cr := range c.Crashes {
		if !strings.Contains(cr.Point, ".before-") && !strings.Contains(cr.Point, ".after-") {
			errs = append(errs, fmt.Errorf("sim: crash point %q is not of the form process.before-effect or process.after-effect", cr.Point))
		}
		if cr.Occurrence < 1 {
			errs = append(errs, fmt.Errorf("sim: crash %s: Occurrence = %d, want >= 1", cr.Point, cr.Occurrence))
		}
	}
	for _, f := range c.Faults {
		spec, ok := f.Kind.Spec()
		if !ok {
			errs = append(errs, fmt.Errorf("sim: unknown fault %q (valid: %s)", f.Kind, kindList()))
			continue
		}
		if err := spec.validate(f, c); err != nil {
			errs = append(errs, err)
		}
	}
	if c.Operations != nil {
		fixes := 0
		for _, op := range c.Operations {
			switch op.Kind {
			case OpFix:
				fixes++
			case OpCleanup, OpReplayUnfixed, OpReplayAgain:
			default:
				errs = append(errs, fmt.Errorf("sim: unknown operation %q (valid: %s, %s, %s, %s)", op.Kind, OpCleanup, OpReplayUnfixed, OpFix, OpReplayAgain))
			}
		}
		if fixes != 1 {
			errs = append(errs, fmt.Errorf("sim: %d operations %q, want exactly one: the operator fixes the causes once", fixes, OpFix))
		}
	}
	for i := 1; i < len(c.Workload); i++ {
		if c.Workload[i].At < c.Workload[i-1].At {
			errs = append(errs, fmt.Errorf("sim: workload command %d (%s) is earlier than the one before it", i, c.Workload[i].Command))
		}
	}
	return errors.Join(errs...)
}

// validateConsumers names what several billing instances cannot have (a
// crash or kill of one), and resends out of time order.
func (c Config) validateConsumers() []error {
	var errs []error
	if c.Consumers > 1 {
		for _, cr := range c.Crashes {
			if strings.HasPrefix(cr.Point, roleConsumer+".") {
				errs = append(errs, fmt.Errorf("sim: crash %s with Consumers = %d: a crash of one billing instance would take back the others' deliveries too (one connection per subscription); crash billing with one instance", cr.Point, c.Consumers))
			}
		}
		for _, f := range c.Faults {
			if f.Kind == FaultKill && strings.HasPrefix(f.Process, c.Variant.ConsumerProcess()) {
				errs = append(errs, fmt.Errorf("sim: kill %s with Consumers = %d: a kill of one billing instance would take back the others' deliveries too; kill billing with one instance", f.Process, c.Consumers))
			}
		}
	}
	for i := 1; i < len(c.Resends); i++ {
		if c.Resends[i].At < c.Resends[i-1].At {
			errs = append(errs, fmt.Errorf("sim: resend %d (%s) is earlier than the one before it", i, c.Resends[i].Target))
		}
	}
	return errs
}

// EventKinds returns the kind of command that makes each event of the
// workload, by order and sequence: an order's events count from its
// placing, one for each amend or cancel until it is cancelled (later
// commands are refused).
func EventKinds(workload []Command) map[broker.Target]orders.Kind {
	seq := map[string]int{}
	out := map[broker.Target]orders.Kind{}
	for _, c := range workload {
		id, kind := c.Command.OrderID, c.Command.Kind
		switch {
		case kind == orders.Place && seq[id] == 0:
			seq[id] = 1
		case seq[id] < 1 || kind == orders.Place:
			continue // not placed, cancelled, or placed twice: refused
		default:
			seq[id]++
		}
		out[broker.Target{AggregateID: id, Sequence: seq[id]}] = kind
		if kind == orders.Cancel {
			seq[id] = -1
		}
	}
	return out
}
