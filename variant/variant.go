package variant

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/store"
)

// Subscription is the broker subscription billing consumes from: the
// consumer process's name. A variant with another ConsumerName consumes
// from a subscription of that name.
const Subscription = "billing"

// Env is what a process is built from: the durable systems it may use and
// the values the world hands in (gate, clock, ids, randomness). A restart
// builds the process again from a fresh Env with the same durable systems.
type Env struct {
	// Owner is the process's name: "service", "relay-1", "billing".
	Owner string
	// OrderDB is the order service's database (orders, outbox).
	OrderDB *store.DB
	// BillingDB is billing's database (ledger, accounts, inbox).
	BillingDB *store.DB
	Broker    *broker.Broker
	// Gate performs this process's durable effects.
	Gate effect.Gate
	// Clock is the process's own clock, which a clock-skew fault sets
	// ahead or behind.
	Clock Clock
	// DBClock is the order database's clock, what now() returns in its
	// SQL: one clock for every process. Leases are judged by it, so that
	// one host's wrong clock cannot take a live claim from another.
	DBClock Clock
	// IDs draws message ids.
	IDs IDs
	// Rand draws jitter and other random choices of the process.
	Rand Rand
}

// Clock tells the current (virtual) time.
type Clock interface{ Now() time.Time }

// IDs draws message ids.
type IDs interface{ NewID() string }

// Rand is a seeded random source.
type Rand interface{ Float64() float64 }

// Service is the order service: it runs the use cases the workload calls.
type Service interface {
	Handle(orders.Command) error
}

// Relay moves messages from the order service to the broker.
type Relay interface {
	// Recover runs once after every (re)start.
	Recover() error
	// Step does one round of work and reports whether it did anything.
	Step() (bool, error)
	// NextWake tells when Step will next have work if nothing else happens;
	// false means never. The simulator wakes the relay then (unless it
	// polls relays as their production loop does: sim.Config.Poll), keeps
	// the answer until the databases, the broker or the relay's own steps
	// change, and judges it: a relay that sleeps past a due message longer
	// than an idle poll and the pause its failures allow is LATE.
	NextWake() (time.Time, bool)
	// ReplayDeadLetters is the operator's replay after every cause was
	// fixed: all dead letters.
	ReplayDeadLetters() (int, error)
}

// SelectiveReplayer is a Relay whose operator can replay the dead letters
// of one order and event type, as one does who fixed one cause and not
// yet the others. The simulator fixes a run's rejected messages one at a
// time and replays each through it when the relay has it, the last of
// them through ReplayDeadLetters, and through ReplayDeadLetters alone
// otherwise; a selective replay that leaves its dead letter dead is STUCK,
// and one that puts back more than it was asked to sends messages whose
// cause is not fixed into another round of failed attempts (STORM).
type SelectiveReplayer interface {
	ReplayDeadLettersOf(aggregateID, eventType string) (int, error)
}

// DeadLetterKeeper is a Relay that keeps its dead letters outside the
// outbox table (the CDC relay keeps them in a table of its own): the lab
// reads them through it, and judges them as it judges the outbox's
// (GAVE_UP under transient faults, replayed by the operator). The outbox
// table's DEAD_LETTER rows, the contract every polling relay shares, the
// lab reads itself.
type DeadLetterKeeper interface {
	DeadLetters() []DeadLetter
}

// Holder is a Consumer that tells what it holds without having applied
// it: Held the messages it parked (behind a gap, and its dead letters),
// DeadLetters its dead letters alone. The lab reads billing's dead
// letters and parked messages through it (a dead letter explains a lost
// change, one under a transient fault is GAVE_UP, one parked after more
// attempts than its policy makes is STORM); from a consumer without it,
// from the inbox's tables, which the course's consumers share
// (inbox.Held).
type Holder interface {
	Held() []inbox.Parked
	DeadLetters() []inbox.Parked
}

// Consumer is billing's consumer.
type Consumer interface {
	// Step handles at most one delivery and reports whether there was one.
	Step() (bool, error)
	// ReplayDeadLetters is the operator's replay after the cause was fixed.
	ReplayDeadLetters() (int, error)
}

// Variant is one way to build the three parts, with what theory predicts.
type Variant struct {
	// Name is the public id, e.g. "outbox", "dual-write".
	Name string
	// Summary says in one line what the variant does, in English and in
	// German (labrun --lang de; a Summary without DE prints its EN):
	// lang.Text{EN: "my relay", DE: "mein Relay"}.
	Summary lang.Text
	// Chapter says which passage of the course chapters describes it.
	Chapter string
	// Expect maps crash point and fault ids to the outcome theory predicts;
	// every point not listed is expected OK (or n/a if never reached).
	Expect map[string]Outcome
	// Policy declares how the relay retries, pauses and keeps messages and
	// how the consumer retries before it parks one: the lab judges the
	// variant by it (its budgets of STORM, GAVE_UP and LATE, the
	// retention its cleanup must keep), within the bounds it sets every
	// policy (check.PolicyFindings). A zero part is the course's policy
	// (CourseRelayPolicy, CourseConsumerPolicy).
	Policy Policy
	// Install creates the variant's tables.
	Install func(orderDB, billingDB *store.DB) error
	// RelayRole names the processes NewRelay builds, in process names
	// ("relay-1") and crash point ids ("relay.after-send"). "" means
	// "relay".
	RelayRole string
	// ServiceName and ConsumerName name the service and consumer
	// processes in the trace and in faults ("" means "service" and
	// "billing"): the insurance story's are "claims" and "payments". Their
	// crash points keep the roles' names (service.after-commit,
	// consumer.before-commit).
	ServiceName, ConsumerName string
	// RelaySubscription, if set, is a broker subscription those processes
	// consume (listen-to-yourself reads its own events back).
	RelaySubscription string
	// MaxRelays is how many relay processes the variant supports side by
	// side; 0 means any number. A CDC connector is the one reader of its
	// replication slot; listen-to-yourself's listener must apply the
	// service's decisions in the order the broker logged them, which
	// competing listeners do not.
	MaxRelays int
	// PublishesPastDeadLetters says the relay publishes an aggregate's
	// later events past one it gave up (a dead letter): a relay that
	// tails a commit log (CDC) cannot hold an aggregate back. A relay
	// must not publish an aggregate's later event before the first copy
	// of an earlier one while the earlier one is still being tried; with
	// this declared, one that was a dead letter then is excused, and
	// billing's gap handling must hold. Otherwise a later event stored
	// before an earlier one's first copy is OUT_OF_ORDER, dead letter or
	// not.
	PublishesPastDeadLetters bool
	// MaxServices is how many service instances the variant supports side
	// by side; 0 means any number. A service that decides without its
	// database (listen-to-yourself publishes first) cannot serialise two
	// instances deciding on one order at once: both publish the same
	// sequence number. The broker has no conditional append to refuse the
	// second, so such a service needs one writer per order.
	MaxServices int
	// RelayConfig, if not nil, says the relay NewRelay builds is the
	// reference relay with outbox.DefaultConfig changed by RelayConfig:
	// then its configuration can be changed further (WithRelayConfig,
	// labrun scenario --max-attempts ...). nil for any other relay. A
	// variant made from one of the lab's by replacing NewRelay keeps the
	// field: labrun changes the configuration of the lab's own variants
	// only (scenarios.IsLabVariant).
	RelayConfig func(*outbox.Config)
	// NewService, NewRelay and NewConsumer build a process. NewRelay is nil
	// for a variant without a relay.
	NewService  func(Env) (Service, error)
	NewRelay    func(Env) (Relay, error)
	NewConsumer func(Env) (Consumer, error)
}

// Policy is what a variant declares of its relay's and its consumer's
// policies.
type Policy struct {
	Relay    RelayPolicy
	Consumer ConsumerPolicy
}

// RelayPolicy returns the relay policy v is judged by: its declared one,
// or the course's.
func (v Variant) RelayPolicy() RelayPolicy {
	if v.Policy.Relay == (RelayPolicy{}) {
		return CourseRelayPolicy()
	}
	return v.Policy.Relay
}

// ConsumerPolicy returns the consumer policy v is judged by: its declared
// one, or the course's.
func (v Variant) ConsumerPolicy() ConsumerPolicy {
	if v.Policy.Consumer == (ConsumerPolicy{}) {
		return CourseConsumerPolicy()
	}
	return v.Policy.Consumer
}

// Correct reports whether v claims to be correct: it declares OK at every
// point (an empty Expect, or OK everywhere it names). A variant that
// claims it is held to more than the matrix: the double-crash sweep and
// random exploration must find nothing either, and labrun fails it if
// they do.
func (v Variant) Correct() bool {
	for _, o := range v.Expect {
		if o != OK {
			return false
		}
	}
	return true
}

// Expected returns the outcome the variant declares for a point.
func (v Variant) Expected(point string) Outcome {
	if o, ok := v.Expect[point]; ok {
		return o
	}
	return OK
}

// RelayRoleName returns RelayRole, or "relay" if it is empty.
func (v Variant) RelayRoleName() string {
	if v.RelayRole == "" {
		return "relay"
	}
	return v.RelayRole
}

// ServiceProcess returns ServiceName, or "service" if it is empty.
func (v Variant) ServiceProcess() string {
	if v.ServiceName == "" {
		return "service"
	}
	return v.ServiceName
}

// ConsumerProcess returns ConsumerName, or "billing" if it is empty.
func (v Variant) ConsumerProcess() string {
	if v.ConsumerName == "" {
		return "billing"
	}
	return v.ConsumerName
}

// Validate reports what is missing from v.
func (v Variant) Validate() error {
	switch {
	case v.Name == "":
		return fmt.Errorf("variant: no Name")
	case v.Install == nil || v.NewService == nil || v.NewConsumer == nil:
		return fmt.Errorf("variant %s: Install, NewService and NewConsumer are required", v.Name)
	}
	if err := errors.Join(v.Policy.Relay.Validate(), v.Policy.Consumer.Validate()); err != nil {
		return fmt.Errorf("variant %s: %w", v.Name, err)
	}
	return nil
}
