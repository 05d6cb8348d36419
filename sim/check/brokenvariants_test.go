package check_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"outboxlab/alternatives/legacycdc"
	"outboxlab/alternatives/skiplocked"
	"outboxlab/alternatives/twophase"
	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/inbox"
	"outboxlab/internal/longtest"
	"outboxlab/lab/explore"
	"outboxlab/lab/labtest"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/store"
	"outboxlab/variant"
)

// A check is trusted once it has failed. Each case below is the reference
// with one change a learner plausibly makes, graded at one matrix row; the
// lab must name the outcome and say in its detail line what went wrong.
// Each of these variants was graded OK before the check that catches it
// existed.
func TestTheLabCatchesBrokenVariantsItDoesNotShip(t *testing.T) {
	cases := []struct {
		name   string
		v      variant.Variant
		point  string
		want   variant.Outcome // the cell's outcome
		detail string          // a violation line that must appear
		polled bool            // run with every relay polled as its production loop polls it
	}{
		{
			name:   "a consumer that bills amendments as 0.00",
			v:      labtest.WithConsumerEffect("zero-amendments", billZeroForAmendments),
			point:  "duplicate-delivery",
			want:   variant.Mismatch,
			detail: "MISMATCH o-1#2: billed line +0.00 EUR, the change was line +19.99 EUR",
		},
		{
			name:   "a relay that gives up after two attempts",
			v:      labtest.WithRelayConfig("impatient-relay", func(c *outbox.Config) { c.MaxAttempts = 2 }),
			point:  "broker-outage",
			want:   variant.GaveUp,
			detail: "was dead-lettered in the outbox (broker: publish",
		},
		{
			name: "a relay that retries every second, without growing backoff or a limit",
			v: labtest.WithRelayConfig("hammering-relay", func(c *outbox.Config) {
				c.BackoffBase, c.BackoffCap, c.PauseCap, c.MaxAttempts = time.Second, time.Second, time.Second, 1<<30
			}),
			point:  "broker-outage",
			want:   variant.Storm,
			detail: "the retry policy allows 20: retries without backoff or limit hammer the broker",
		},
		{
			name:   "a relay whose backoff overflows int32 milliseconds from its 22nd failed send",
			v:      backoffOverflow(),
			point:  "rejected",
			want:   variant.Storm,
			detail: "after its failed send 22 in a row, the retry policy's backoff is 5m0s: the backoff was not kept",
		},
		{
			name:   "an operator's replay that selects dead letters by event type alone",
			v:      replayByTypeAlone(),
			point:  "rejected",
			want:   variant.Storm,
			detail: "was published 31 times, the retry policy allows 30",
		},
		{
			name:   "a relay that judges leases by its own host's clock",
			v:      hostClockLeases(),
			point:  "clock-skew",
			want:   variant.Unsafe,
			detail: "while relay-1's lease ran until",
		},
		{
			name: "a relay whose claims never expire, though it releases its own after a restart",
			v: labtest.WithRelayConfig("endless-lease", func(c *outbox.Config) {
				c.Lease = 100 * 365 * 24 * time.Hour
			}),
			point:  "relay-lost",
			want:   variant.Stuck,
			detail: "is IN_FLIGHT after quiesce (claimed by relay-1, never released)",
		},
		{
			name:   "a relay whose recovery does nothing",
			v:      labtest.Learner("no-recover", func(r *labtest.LearnerRelay) { r.NoRecover = true }),
			point:  "relay.after-claim",
			want:   variant.Late,
			detail: "relay-1 restarted at 00:00:05.017 and ended a step at 00:00:05.081 still holding its own claim from before its crash",
		},
		{
			name:   "a relay that names itself anew at each start, so that its recovery finds no claim of its name",
			v:      newNameEachStart(),
			point:  "relay-restart",
			want:   variant.Late,
			detail: "still holding its own claim from before its crash",
		},
		{
			name:   "a relay that marks a failed send and keeps the rest of its batch claimed",
			v:      keepsTheRest(),
			point:  "broker-outage",
			want:   variant.Late,
			detail: "LATE o-1#2: relay-1 ended a step at 00:00:03.066 still holding it, claimed, under a lease until 00:00:33.036",
		},
		{
			name:   "a relay that pauses only in NextWake, polled as its production loop polls it",
			v:      labtest.PausesOnlyInNextWake(),
			point:  "outage-backlog",
			polled: true,
			want:   variant.Storm,
			detail: "sends while it was down, a relay that pauses after a failed send allows 63",
		},
		{
			name: "a relay that pauses as a whole for up to five minutes after failed sends",
			v: labtest.WithRelayConfig("long-pause", func(c *outbox.Config) {
				c.PauseCap = 5 * time.Minute
			}),
			point:  "broker-outage",
			want:   variant.Late,
			detail: "the broker up, but relay-1 slept until",
		},
		{
			name:   "a consumer that puts a message aside at its first failure",
			v:      labtest.WithConsumerConfig("no-second-try", func(c *inbox.Config) { c.MaxAttempts = 1 }),
			point:  "corrupt-once",
			want:   variant.GaveUp,
			detail: "aside as a dead letter after 1 attempt(s), though its fault was transient",
		},
		{
			name:   "a relay whose recovery hands its caller the refusal of its release",
			v:      labtest.Learner("recovery-conflict-is-an-error", func(r *labtest.LearnerRelay) { r.RecoverStrictly = true }),
			point:  "recover-conflict",
			want:   variant.OK,
			detail: "relay-1: outbox: recover: store orders: commit: outbox/000000000002: write conflict",
		},
		{
			// Judged by the owner names, relay-1's recovery released its
			// own claims and this was OK: two processes sent the message
			// under two live leases.
			name:   "relays that all write the owner name \"relay\"",
			v:      labtest.WithRelayConfig("one-name-for-all", func(c *outbox.Config) { c.Owner = "relay" }),
			point:  "relay-restart",
			want:   variant.Unsafe,
			detail: "set PENDING by relay-1 at 00:00:09.000, while relay-2's lease ran until",
		},
		{
			// Judged by the owner names, this was LATE at every point
			// (relay-1 seemed to hold relay-2's claims) and OK here.
			name: "a second relay deployed with the first one's name",
			v: labtest.WithRelayConfig("copied-name", func(c *outbox.Config) {
				if c.Owner == "relay-2" {
					c.Owner = "relay-1"
				}
			}),
			point:  "relay-restart",
			want:   variant.Unsafe,
			detail: "while relay-2's lease ran until",
		},
		{
			name:   "chapter 003's relay with its select's FOR UPDATE SKIP LOCKED left out",
			v:      skipLockedWithoutTheLock(),
			point:  "stall",
			want:   variant.Unsafe,
			detail: "marked SENT from PENDING, without a claim (a lease, or the row's lock)",
		},
		{
			name: "a two-phase commit's coordinator that aborts whatever is in doubt",
			// o-3's placement: no later command of o-3 has the service
			// commit it itself (twophase.Service.finishEarlier).
			v:      coordinatorThatAbortsAll(),
			point:  "service.after-commit",
			want:   variant.Lost,
			detail: "LOST o-3#1: committed, but billing never applied it",
		},
		{
			name:   "billing on a legacy table's rows that bills a row's total as the amendment",
			v:      legacyBillingOfTotals(),
			point:  "duplicate-delivery",
			want:   variant.Mismatch,
			detail: "MISMATCH o-1#2: billed line +39.98 EUR, the change was line +19.99 EUR",
		},
		{
			// The fake broker panicked, and the verdict said the
			// learner's code had: a real client returns an error.
			name:   "a consumer that replays its dead letters to a subscription the broker does not have",
			v:      replaysElsewhere(),
			point:  "poison",
			want:   variant.Lost,
			detail: "and it vanished: it is neither a dead letter again, nor delivered, nor waiting to be sent",
		},
		{
			name:   "a relay that takes a publish timeout for a success",
			v:      timeoutMeansStored(),
			point:  "publish-timeout-dropped",
			want:   variant.Lost,
			detail: "LOST o-1#1: committed, but billing never applied it",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := scenarios.FindPoint(c.point)
			if err != nil {
				t.Fatal(err)
			}
			m := scenarios.Matrix()
			if c.polled {
				m = m.Polled()
			}
			cell, err := m.RunCell(c.v, p)
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, v := range cell.Violations {
				lines = append(lines, v.String())
			}
			lines = append(lines, cell.Unhandled...) // the errors it returned
			if cell.Matches() {
				t.Errorf("%s at %s: %s, which its declaration allows", c.v.Name, c.point, cell.Outcome)
			}
			if cell.Outcome != c.want {
				t.Errorf("%s at %s: %s, want %s\n%s", c.v.Name, c.point, cell.Outcome, c.want, strings.Join(lines, "\n"))
			}
			found := false
			for _, l := range lines {
				found = found || strings.Contains(l, c.detail)
			}
			if !found {
				t.Errorf("%s at %s: no violation says %q:\n%s", c.v.Name, c.point, c.detail, strings.Join(lines, "\n"))
			}
		})
	}
}

// replaysElsewhere is the reference consumer whose operator's replay
// redelivers to "billing-dlq", a subscription the broker does not have
// (a name from another environment's configuration): the broker refuses
// it, and the dead letters the replay took out are gone.
func replaysElsewhere() variant.Variant {
	v := variant.Outbox()
	v.Name = "replays-elsewhere"
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		return inbox.NewConsumer(inbox.DefaultConfig(env.Owner, variant.Subscription),
			inbox.Deps{DB: env.BillingDB, Broker: otherReplaySubscription{env.Broker}, Gate: env.Gate, Clock: env.Clock, Effect: billing.ApplyEffect})
	}
	return v
}

type otherReplaySubscription struct{ *broker.Broker }

func (b otherReplaySubscription) Redeliver(_, messageID string) error {
	return b.Broker.Redeliver("billing-dlq", messageID)
}

// billZeroForAmendments is billing's effect with one slip: an amendment's
// line is written with a zero amount.
func billZeroForAmendments(tx *store.Tx, e domain.Event, messageID string, now time.Time) error {
	if a, ok := e.(domain.OrderAmended); ok {
		a.Amount = domain.Money{Currency: a.Amount.Currency}
		e = a
	}
	return billing.ApplyEffect(tx, e, messageID, now)
}

// keepsTheRest is a learner's relay (see labtest.LearnerRelay) that, when a send
// fails, marks that message FAILED and stops, leaving the rest of the
// batch claimed: nobody sends those until their lease runs out, though the
// broker may be back in a second.
func keepsTheRest() variant.Variant {
	return labtest.Learner("keeps-the-rest", func(r *labtest.LearnerRelay) { r.KeepRest = true })
}

// backoffOverflow is a learner's relay (see labtest.LearnerRelay) that tries a
// message 30 times, declares so, and computes its backoff in int32
// milliseconds: from the 22nd failed send on the message is retried at
// the relay's pause (10 s), not every 300 s. Its count of tries stays
// within the policy's budget; their spacing does not.
func backoffOverflow() variant.Variant {
	thirty := func(c *outbox.Config) { c.MaxAttempts = 30 }
	v := labtest.Learner("backoff-overflow", func(r *labtest.LearnerRelay) { thirty(&r.Cfg); r.Backoff32 = true })
	return labtest.Declaring(v, thirty)
}

// newNameEachStart is the reference relay whose owner name gets a suffix
// drawn at each start ("relay-1-4821"): its recovery releases the claims
// of its new name, none, and the claims of its earlier life wait out
// their lease. Whose claim it is, the lab judges by the process that
// committed it.
func newNameEachStart() variant.Variant {
	v := variant.Outbox()
	v.Name = "new-name-each-start"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		env.Owner = fmt.Sprintf("%s-%04d", env.Owner, int(env.Rand.Float64()*10000))
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return variant.AdaptRelay(r), nil
	}
	return v
}

// replayByTypeAlone is the reference relay whose selective replay forgets
// the order: asked for o-1's OrderPlaced dead letters, it puts back every
// order's, whose causes may not be fixed yet.
func replayByTypeAlone() variant.Variant {
	v := variant.Outbox()
	v.Name = "replay-by-type-alone"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return typeAloneReplay{variant.AdaptRelay(r)}, nil
	}
	return v
}

type typeAloneReplay struct{ *variant.RelayAdapter }

func (r typeAloneReplay) ReplayDeadLettersOf(_, eventType string) (int, error) {
	return r.Relay.ReplayDeadLetters(outbox.Filter{EventType: eventType})
}

// timeoutMeansStored is the reference relay talking to the broker through
// a client that reports a publish timeout as success ("it usually
// arrives"). When the broker stored the message, nothing shows; when the
// request was lost, the message is marked SENT and never sent again. A
// fault model that always stores on a timeout (the lab's old lost ack)
// graded this relay OK.
func timeoutMeansStored() variant.Variant {
	v := variant.Outbox()
	v.Name = "timeout-means-stored"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := outbox.NewRelay(outbox.DefaultConfig(env.Owner), outbox.Deps{
			DB: env.OrderDB, Broker: optimist{to: env.Broker}, Gate: env.Gate, Clock: env.Clock, Rand: env.Rand})
		if err != nil {
			return nil, err
		}
		return variant.AdaptRelay(r), nil
	}
	return v
}

type optimist struct{ to broker.Publisher }

func (o optimist) Publish(e broker.Envelope) error {
	if err := o.to.Publish(e); err != nil && !errors.Is(err, broker.ErrTimeout) {
		return err
	}
	return nil
}

// skipLockedWithoutTheLock is chapter 003's relay whose select locks
// nothing: two relays read the same rows and publish them both, and each
// marks them processed without owning them. (It was OK before a SENT mark
// needed a lease or the marking transaction's lock on the row.)
func skipLockedWithoutTheLock() variant.Variant {
	v := skiplocked.Variant()
	v.Name = "skip-locked-tx-without-lock"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r := skiplocked.New(env.OrderDB, env.Broker, env.Gate, env.DBClock, env.Owner)
		r.Lock = func(*store.Tx, string) bool { return true } // a plain SELECT
		return r, nil
	}
	return v
}

// legacyBillingOfTotals is legacy-cdc with billing reading the orders
// row the easy way: an amended row's total billed as the amendment,
// without the difference to what it billed before.
func legacyBillingOfTotals() variant.Variant {
	v := legacycdc.Variant()
	v.Name = "legacy-cdc-totals"
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		return inbox.NewConsumer(inbox.DefaultConfig(env.Owner, variant.Subscription), inbox.Deps{DB: env.BillingDB, Broker: env.Broker,
			Gate: env.Gate, Clock: env.Clock, Effect: func(tx *store.Tx, e domain.Event, id string, now time.Time) error {
				if row, ok := e.(domain.OrderRow); ok && row.Version > 1 && row.Status == domain.Accepted {
					e = domain.OrderAmended{OrderID: row.ID, Sequence: row.Version, Amount: row.Total, AmendedAt: row.UpdatedAt}
					return billing.ApplyEffect(tx, e, id, now)
				}
				return legacycdc.Bill(tx, e, id, now)
			}})
	}
	return v
}

// coordinatorThatAbortsAll is the two-phase commit whose coordinator
// aborts every message in doubt without asking the database whether its
// change was committed: a service that died between its commit and the
// broker's commit loses the event.
func coordinatorThatAbortsAll() variant.Variant {
	v := twophase.Variant()
	v.Name = "two-phase-commit-abort-all"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		return abortAll{&twophase.Coordinator{DB: env.OrderDB, Broker: env.Broker, Gate: env.Gate, Clock: env.DBClock}}, nil
	}
	return v
}

type abortAll struct{ *twophase.Coordinator }

func (a abortAll) Step() (bool, error) {
	did := false
	for _, m := range a.Broker.InDoubt(a.Clock.Now().Add(-twophase.InDoubtAfter)) {
		did = true
		_ = a.Gate.Cross(twophase.BoundaryResolve, func() error { return a.Broker.AbortPrepared(m.ID) })
	}
	return did, nil
}

// hostClockLeases is the reference relay wired to its host's clock
// instead of the database's: the natural choice in code that calls
// time.Now(). With one host's clock a minute ahead, every lease another
// relay takes looks expired to it.
func hostClockLeases() variant.Variant {
	v := variant.Outbox()
	v.Name = "host-clock-leases"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := outbox.NewRelay(outbox.DefaultConfig(env.Owner), outbox.Deps{
			DB: env.OrderDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Rand: env.Rand})
		if err != nil {
			return nil, err
		}
		return variant.AdaptRelay(r), nil
	}
	return v
}

// coordinatorThatGuesses is the two-phase commit whose coordinator
// decides a message in doubt by reading the order (committed when the
// order database holds its change), as it did before its decisions
// became durable: a service slower than InDoubtAfter commits between the
// coordinator's read and its abort, and the order is stored without its
// event.
func coordinatorThatGuesses() variant.Variant {
	v := twophase.Variant()
	v.Name = "two-phase-commit-guessing"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		return guessing{&twophase.Coordinator{DB: env.OrderDB, Broker: env.Broker, Gate: env.Gate, Clock: env.DBClock}}, nil
	}
	return v
}

type guessing struct{ *twophase.Coordinator }

func (g guessing) Step() (bool, error) {
	did := false
	for _, m := range g.Broker.InDoubt(g.Clock.Now().Add(-twophase.InDoubtAfter)) {
		o, _ := orders.Get(g.DB, m.Event.AggregateID)
		committed := o.Version >= m.Event.Sequence
		did = true
		err := g.Gate.Cross(twophase.BoundaryResolve, func() error {
			if committed {
				return g.Broker.CommitPrepared(m.ID)
			}
			return g.Broker.AbortPrepared(m.ID)
		})
		if err != nil {
			return did, err
		}
	}
	return did, nil
}

// TestACoordinatorThatGuessesFromTheOrderIsCaught: the shipped
// two-phase commit failed exploration (LOST in 4 of 1,000 schedules at
// seed 2) while its coordinator guessed a decision from the order it
// read; its decisions are now committed where the service's commit
// conflicts with them. The guessing coordinator stays caught.
func TestACoordinatorThatGuessesFromTheOrderIsCaught(t *testing.T) {
	longtest.Only(t, "long_explore", "TestTheLabCatchesBrokenVariantsItDoesNotShip")
	f, err := explore.Explore(coordinatorThatGuesses(), 1000, 2, explore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f == nil || f.Result.Outcome != variant.Lost {
		t.Fatalf("a guessing coordinator: %+v in 1000 schedules at seed 2, want LOST", f)
	}
	g, err := explore.Explore(twophase.Variant(), 1000, 2, explore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g != nil {
		t.Errorf("two-phase-commit: %s in the same schedules", g.Result.Outcome)
	}
}
