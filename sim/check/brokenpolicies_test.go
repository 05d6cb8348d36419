package check_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"outboxlab/billing"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/lab/labtest"
	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/store"
	"outboxlab/variant"
)

// TestAPolicyIsJudgedByItsOwnNumbers: a learner's relay that tries a
// message 20 times with backoff capped at a minute is a legitimate policy.
// Declared, it is judged by its own numbers and OK at every point; judged
// by the reference's (ten attempts), it was STORM at broker-outage,
// outage-backlog and rejected.
func TestAPolicyIsJudgedByItsOwnNumbers(t *testing.T) {
	patient := func(c *outbox.Config) { c.MaxAttempts, c.BackoffCap = 20, time.Minute }
	labtest.OKEverywhere(t, labtest.Declaring(labtest.WithRelayConfig("patient-relay", patient), patient))
	// Judged both ways: a relay that keeps to its jitter, its cap and a
	// lease of its own writes retry times and leases within them.
	jittered := func(c *outbox.Config) {
		c.MaxAttempts, c.BackoffCap, c.Jitter, c.Lease = 20, time.Minute, 0.3, 10*time.Second
	}
	labtest.OKEverywhere(t, labtest.Declaring(labtest.WithRelayConfig("jittered-short-lease", jittered), jittered))
}

// TestARelaySlowerThanItDeclaresIsLate: a declared policy is judged both
// ways. A relay that declares a 30 s backoff cap and writes the course's
// (five minutes) as the retry time of a message that failed during an
// outage, and one that declares a 10 s lease and claims for a minute,
// passed every row: the budgets judged only doing more than declared.
// What each wrote is now judged against what it declares.
func TestARelaySlowerThanItDeclaresIsLate(t *testing.T) {
	cases := []struct {
		name, point string
		v           variant.Variant
		detail      string
	}{
		{
			name: "a relay that declares a 30 s backoff cap and waits longer",
			v: labtest.Declaring(labtest.WithRelayConfig("slower-backoff", func(c *outbox.Config) { c.MaxAttempts = 30 }),
				func(c *outbox.Config) { c.MaxAttempts, c.BackoffCap, c.Jitter = 30, 30*time.Second, 0.1 }),
			point:  "broker-outage",
			detail: "LATE o-1#1: after its failed send 5, message e-6aaa407bc219b7cd waited 32s, until 00:01:07.209, where its policy says 30s (backoff from 1s, capped at 30s)",
		},
		{
			name: "a relay that declares a 10 s lease and claims for a minute",
			v: labtest.Declaring(labtest.WithRelayConfig("longer-lease", func(c *outbox.Config) { c.Lease = time.Minute }),
				func(c *outbox.Config) { c.Lease = 10 * time.Second }),
			point:  "service.after-commit",
			detail: "where its policy says a lease of 10s",
		},
		{
			// From an examiner: declaring no lease was the way around
			// the lab's bound; relay-lost's o-2#1 waited an hour, OK.
			name: "a relay that declares no lease and claims for an hour",
			v: labtest.Declaring(labtest.WithRelayConfig("lease-hidden", func(c *outbox.Config) { c.Lease = time.Hour }),
				func(c *outbox.Config) { c.Lease = 0 }),
			point:  "service.after-commit",
			detail: "its policy declares no lease, and the lab accepts at most 1m",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			outcome, lines := labtest.Cell(t, c.v, c.point)
			if outcome != variant.Late || !strings.Contains(lines, c.detail) {
				t.Errorf("%s at %s: %s, want LATE with %q:\n%s", c.v.Name, c.point, outcome, c.detail, lines)
			}
		})
	}
}

// TestTheLabBoundsEveryPolicy: a policy the variant declares is what its
// budgets come from, and the lab bounds it: each case declares a policy
// outside the lab's bounds (check.PolicyFindings), honestly (its relay or
// consumer does what it declares) or not, and the row that puts it to the
// test says so. Before the budgets came from the declaration, each
// honest one was judged by the reference's numbers; the dishonest one, by
// the same numbers it did not keep.
func TestTheLabBoundsEveryPolicy(t *testing.T) {
	cases := []struct {
		name   string
		v      variant.Variant
		point  string
		want   variant.Outcome
		detail string
	}{
		{
			name: "a relay that declares 20 attempts and gives up after ten",
			v: labtest.Declaring(labtest.WithRelayConfig("says-20-does-10", func(c *outbox.Config) { c.BackoffCap = time.Minute }),
				func(c *outbox.Config) { c.MaxAttempts, c.BackoffCap = 20, time.Minute }),
			point:  "broker-outage",
			want:   variant.GaveUp,
			detail: "was dead-lettered in the outbox (broker: publish",
		},
		{
			name:   "a relay that claims under a one-hour lease: relay-lost's o-2#1 leaves an hour late",
			v:      labtest.Honest("lease-1h", func(c *outbox.Config) { c.Lease = time.Hour }),
			point:  "relay-lost",
			want:   variant.Late,
			detail: "the relay's policy claims messages under a lease of 1h, the lab allows at most 1m",
		},
		{
			name:   "a relay that claims under a one-day lease",
			v:      labtest.Honest("lease-1d", func(c *outbox.Config) { c.Lease = 24 * time.Hour }),
			point:  "relay-lost",
			want:   variant.Stuck, // still waiting at the horizon; the finding names the lease
			detail: "the relay's policy claims messages under a lease of 24h, the lab allows at most 1m",
		},
		{
			name: "a relay that declares a retry every second, for ever",
			v: labtest.Honest("hammering-declared", func(c *outbox.Config) {
				c.BackoffBase, c.BackoffCap, c.PauseCap, c.MaxAttempts = time.Second, time.Second, time.Second, 1<<30
			}),
			point:  "broker-outage",
			want:   variant.Storm,
			detail: "the relay's policy tries one message 600 times during a 10m outage (backoff from 1s, capped at 1s), the lab allows at most 30",
		},
		{
			name:   "a relay that declares it pauses a second after a failed send",
			v:      labtest.Honest("short-pause-declared", func(c *outbox.Config) { c.PauseCap = time.Second }),
			point:  "outage-backlog",
			want:   variant.Storm,
			detail: "the relay's policy sends requests 600 times into a 10m outage, all messages together (pause from 1s, capped at 1s), the lab allows at most 120",
		},
		{
			name:   "a relay that declares it never gives up",
			v:      labtest.Honest("forever-declared", func(c *outbox.Config) { c.MaxAttempts = math.MaxInt }),
			point:  "rejected",
			want:   variant.Stuck,
			detail: "the relay's policy retries a message for more than 24h before it gives it up",
		},
		{
			name:   "a relay that declares two attempts",
			v:      labtest.Honest("impatient-declared", func(c *outbox.Config) { c.MaxAttempts = 2 }),
			point:  "broker-outage",
			want:   variant.GaveUp,
			detail: "the relay's policy gives a message up after 2 attempts within 2s of failures, but the chapters call a 10m outage transient",
		},
		{
			name:   "a relay that declares a pause of up to five minutes",
			v:      labtest.Honest("long-pause-declared", func(c *outbox.Config) { c.PauseCap = 5 * time.Minute }),
			point:  "broker-outage",
			want:   variant.Late,
			detail: "the relay's policy pauses up to 5m after failed sends, the lab allows at most 1m",
		},
		{
			name:   "a relay that declares it keeps a SENT message an hour",
			v:      labtest.Honest("hour-retention", func(c *outbox.Config) { c.Retention = time.Hour }),
			point:  "service.after-commit",
			want:   variant.Unsafe,
			detail: "the relay's policy keeps a SENT message 1h, the chapters at least 72h",
		},
		{
			name: "a consumer that declares it parks at the first failure",
			v: func() variant.Variant {
				v := labtest.WithConsumerConfig("parks-at-once-declared", func(c *inbox.Config) { c.MaxAttempts = 1 })
				v.Policy.Consumer = variant.ConsumerPolicy{MaxAttempts: 1, UnknownAtOnce: true}
				return v
			}(),
			point:  "corrupt-once",
			want:   variant.GaveUp,
			detail: "the consumer's policy parks a message after 1 attempt(s), the lab wants at least 2",
		},
		{
			// From an examiner: the relay's tries were bounded, billing's
			// not; 1,000 attempts at poison passed, o-1#2 and #3 waiting.
			name: "a consumer that declares a thousand attempts before it parks",
			v: func() variant.Variant {
				v := labtest.WithConsumerConfig("thousand-attempts", func(c *inbox.Config) { c.MaxAttempts = 1000 })
				v.Policy.Consumer = variant.ConsumerPolicy{MaxAttempts: 1000, UnknownAtOnce: true}
				return v
			}(),
			point:  "poison",
			want:   variant.Storm,
			detail: "the consumer's policy tries a message it cannot process 1000 times before it parks it, the lab allows at most 30",
		},
		{
			// Before the lab read billing's dead letters through its
			// port, from the inbox's table alone, this was OK: the
			// operator's replay put the message through.
			name:   "a consumer whose dead letters live in its own table, parked at the first failure",
			v:      quarantining("quarantine-at-once", func(c *inbox.Config) { c.MaxAttempts = 1 }, false),
			point:  "corrupt-once",
			want:   variant.GaveUp,
			detail: "aside as a dead letter after 1 attempt(s), though its fault was transient",
		},
		{
			// Believed, its port's silence was OK: the operator's replay
			// put the message through. The broker's record of what it
			// acknowledged says it holds one.
			name:   "a consumer whose port hides the dead letters in its own table",
			v:      silentQuarantine(),
			point:  "corrupt-once",
			want:   variant.Stuck,
			detail: "billing acknowledged it to the broker without applying its change and kept it: the operator's replay put it through, but billing's port (variant.Holder) does not hold it",
		},
		{
			// Judged blind (from the inbox's table), this was OK.
			name:   "a consumer whose replay keeps the dead letter in its own table",
			v:      quarantining("quarantine-kept", nil, true),
			point:  "poison",
			want:   variant.Stuck,
			detail: "billing applied it and still holds message",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			outcome, lines := labtest.Cell(t, c.v, c.point)
			if outcome != c.want || !strings.Contains(lines, c.detail) {
				t.Errorf("%s at %s: %s, want %s with %q:\n%s", c.v.Name, c.point, outcome, c.want, c.detail, lines)
			}
		})
	}
}

// quarantining is the reference consumer (configured with change, if not
// nil) that moves its dead letters into a table of its own after every
// step, replays them from there (keeping them there, with keep) and shows
// them through the lab's port (variant.Holder).
func quarantining(name string, change func(*inbox.Config), keep bool) variant.Variant {
	v := variant.Outbox()
	v.Name = name
	v.Install = func(orderDB, billingDB *store.DB) error {
		if err := variant.InstallAll(orderDB, billingDB); err != nil {
			return err
		}
		return billingDB.CreateTable(quarantine)
	}
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		cfg := inbox.DefaultConfig(env.Owner, variant.Subscription)
		if change != nil {
			change(&cfg)
		}
		c, err := inbox.NewConsumer(cfg, inbox.Deps{DB: env.BillingDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Effect: billing.ApplyEffect})
		return quarantineConsumer{Consumer: c, env: env, keep: keep}, err
	}
	return v
}

const quarantine = "quarantine"

// silentQuarantine is quarantining's consumer, parking at the first
// failure, with a port that shows nothing of what it holds.
func silentQuarantine() variant.Variant {
	v := quarantining("quarantine-silent", func(c *inbox.Config) { c.MaxAttempts = 1 }, false)
	build := v.NewConsumer
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		c, err := build(env)
		return silentHolder{c.(quarantineConsumer)}, err
	}
	return v
}

type silentHolder struct{ quarantineConsumer }

func (silentHolder) Held() []inbox.Parked        { return nil }
func (silentHolder) DeadLetters() []inbox.Parked { return nil }

type quarantineConsumer struct {
	*inbox.Consumer
	env  variant.Env
	keep bool
}

func (c quarantineConsumer) Step() (bool, error) {
	did, err := c.Consumer.Step()
	if err != nil {
		return did, err
	}
	tx := c.env.BillingDB.Begin(c.env.Owner)
	defer tx.Rollback()
	moved := false
	tx.Scan(inbox.TableDead, func(key string, v any) bool {
		tx.Delete(inbox.TableDead, key)
		tx.Put(quarantine, key, v)
		moved = true
		return true
	})
	if !moved {
		return did, nil
	}
	return did, c.env.Gate.Cross(effect.Boundary{Process: "consumer", Effect: "quarantine"}, tx.Commit)
}

func (c quarantineConsumer) ReplayDeadLetters() (int, error) {
	tx := c.env.BillingDB.Begin(c.env.Owner)
	defer tx.Rollback()
	var ids []string
	tx.Scan(quarantine, func(key string, _ any) bool {
		if !c.keep {
			tx.Delete(quarantine, key)
		}
		ids = append(ids, key)
		return true
	})
	if len(ids) == 0 {
		return 0, nil
	}
	if err := c.env.Gate.Cross(inbox.BoundaryReplay, tx.Commit); err != nil {
		return 0, err
	}
	for _, id := range ids {
		if err := c.env.Broker.Redeliver(variant.Subscription, id); err != nil {
			return 0, err
		}
	}
	return len(ids), nil
}

func (c quarantineConsumer) DeadLetters() []inbox.Parked {
	return store.Values[inbox.Parked](c.env.BillingDB, quarantine)
}

func (c quarantineConsumer) Held() []inbox.Parked {
	return append(store.Values[inbox.Parked](c.env.BillingDB, inbox.TableParked), c.DeadLetters()...)
}

// TestAPolicyNoRelayCanHaveIsRefused: a declared policy no relay can have
// (a negative attempt limit) is a configuration error that names the
// field and what is valid, not a run judged against nonsense.
func TestAPolicyNoRelayCanHaveIsRefused(t *testing.T) {
	v := variant.Outbox()
	v.Policy.Relay.MaxAttempts = -1
	_, err := sim.Run(scenarios.Matrix().Config(v))
	if err == nil || !strings.Contains(err.Error(), "variant outbox: relay policy: MaxAttempts = -1, want >= 0") {
		t.Errorf("%v, want the field named", err)
	}
}

// TestSleepingWhileTheBrokerIsDownIsNotLate: a relay that pauses up to 20
// s after failed sends, longer than the course's 10 s, sleeps only while
// the broker is down at broker-outage, and nothing could have been sent
// then: OK. (It was LATE when the wait was counted from the message's due
// time regardless of the outage, tried.)
func TestSleepingWhileTheBrokerIsDownIsNotLate(t *testing.T) {
	v := labtest.WithRelayConfig("pause-20s", func(c *outbox.Config) { c.PauseCap = 20 * time.Second })
	p, err := scenarios.FindPoint("broker-outage")
	if err != nil {
		t.Fatal(err)
	}
	cell, err := scenarios.Matrix().RunCell(v, p)
	if err != nil {
		t.Fatal(err)
	}
	if cell.Outcome != variant.OK {
		t.Errorf("%s: %s, want OK: %v", p.ID, cell.Outcome, cell.Violations)
	}
}
