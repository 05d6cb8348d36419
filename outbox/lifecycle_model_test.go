package outbox_test

import (
	"errors"
	"testing"
	"time"

	"pgregory.net/rapid"

	"outboxlab/outbox"
)

// model is the reference for one message's lifecycle: the rules written as
// plainly as possible.
type model struct {
	status     outbox.Status
	attempts   int
	nextAt     time.Time
	owner      string
	leaseUntil time.Time
	replays    int
}

func (m *model) claimable(now time.Time) bool {
	switch m.status {
	case outbox.Pending:
		return true
	case outbox.Failed:
		return !now.Before(m.nextAt)
	case outbox.InFlight:
		return !now.Before(m.leaseUntil)
	}
	return false
}

func (m *model) holds(owner string, now time.Time) bool {
	return m.status == outbox.InFlight && m.owner == owner && now.Before(m.leaseUntil)
}

// TestLifecycleAgainstModel drives one message with random transitions by
// two relays at random times and compares the message with the model after
// every step; an illegal transition must fail and change nothing.
func TestLifecycleAgainstModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		const lease, maxAttempts = 30 * time.Second, 3
		now := t0
		msg := outbox.Message{Key: "1", ID: "e-1", CreatedAt: t0, Status: outbox.Pending, NextAttemptAt: t0}
		ref := &model{status: outbox.Pending}
		owners := rapid.SampledFrom([]string{"relay-1", "relay-2"})
		expect := func(t *rapid.T, what string, legal bool, err error, before outbox.Message) {
			if legal && err != nil {
				t.Fatalf("%s: legal by the model, but: %v", what, err)
			}
			if !legal {
				if err == nil {
					t.Fatalf("%s: illegal by the model, but accepted", what)
				}
				if !errors.Is(err, outbox.ErrIllegalTransition) && !errors.Is(err, outbox.ErrLeaseLost) {
					t.Fatalf("%s: error %v is no sentinel", what, err)
				}
				if msg != before {
					t.Fatalf("%s: a refused transition changed the message", what)
				}
			}
		}
		t.Repeat(map[string]func(*rapid.T){
			"wait": func(t *rapid.T) {
				now = now.Add(time.Duration(rapid.IntRange(1, 40).Draw(t, "seconds")) * time.Second)
			},
			"claim": func(t *rapid.T) {
				o, before := owners.Draw(t, "owner"), msg
				legal := ref.claimable(now)
				expect(t, "claim", legal, msg.Claim(o, now, now.Add(lease)), before)
				if legal {
					ref.status, ref.owner, ref.leaseUntil = outbox.InFlight, o, now.Add(lease)
				}
			},
			"markSent": func(t *rapid.T) {
				o, before := owners.Draw(t, "owner"), msg
				legal := ref.holds(o, now)
				expect(t, "mark sent", legal, msg.MarkSent(o, now), before)
				if legal {
					ref.status, ref.owner = outbox.Sent, ""
				}
			},
			"markFailed": func(t *rapid.T) {
				o, before := owners.Draw(t, "owner"), msg
				legal := ref.holds(o, now)
				expect(t, "mark failed", legal, msg.MarkFailed(o, now, "boom", now.Add(2*time.Second), maxAttempts), before)
				if legal {
					ref.attempts++
					ref.owner = ""
					ref.status, ref.nextAt = outbox.Failed, now.Add(2*time.Second)
					if ref.attempts >= maxAttempts {
						ref.status = outbox.DeadLetter
					}
				}
			},
			"release": func(t *rapid.T) {
				o, before := owners.Draw(t, "owner"), msg
				legal := ref.status == outbox.InFlight && ref.owner == o
				expect(t, "release", legal, msg.Release(o), before)
				if legal {
					ref.status, ref.owner = outbox.Pending, ""
				}
			},
			"replay": func(t *rapid.T) {
				before := msg
				legal := ref.status == outbox.DeadLetter
				expect(t, "replay", legal, msg.Replay(now), before)
				if legal {
					ref.status, ref.attempts, ref.replays = outbox.Pending, 0, ref.replays+1
				}
			},
			"": func(t *rapid.T) {
				if msg.Status != ref.status || msg.Attempts != ref.attempts || msg.Replays != ref.replays {
					t.Fatalf("message %s attempts %d replays %d; model %s %d %d", msg.Status, msg.Attempts, msg.Replays, ref.status, ref.attempts, ref.replays)
				}
				if ref.status == outbox.InFlight && (msg.LeaseOwner != ref.owner || !msg.LeaseUntil.Equal(ref.leaseUntil)) {
					t.Fatalf("lease %s until %s; model %s until %s", msg.LeaseOwner, msg.LeaseUntil, ref.owner, ref.leaseUntil)
				}
			},
		})
	})
}
