package outbox_test

import (
	"errors"
	"testing"
	"time"

	"outboxlab/outbox"
)

// base returns a message in the given status at t0: a FAILED one is due at
// t0+10s, an IN_FLIGHT one is leased by relay-1 until t0+30s.
func base(s outbox.Status) outbox.Message {
	m := outbox.Message{Key: "1", ID: "e-1", CreatedAt: t0, Status: s, NextAttemptAt: t0}
	switch s {
	case outbox.Failed:
		m.Attempts, m.NextAttemptAt = 1, t0.Add(10*time.Second)
	case outbox.InFlight:
		m.LeaseOwner, m.LeaseUntil = "relay-1", t0.Add(30*time.Second)
	case outbox.DeadLetter:
		m.Attempts = 10
	case outbox.Sent:
		m.SentAt = t0
	}
	return m
}

func TestLifecycleTransitions(t *testing.T) {
	type transition func(*outbox.Message) error
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	claim := func(owner string, now time.Duration) transition {
		return func(m *outbox.Message) error { return m.Claim(owner, at(now), at(now+30*time.Second)) }
	}
	markSent := func(owner string, now time.Duration) transition {
		return func(m *outbox.Message) error { return m.MarkSent(owner, at(now)) }
	}
	markFailed := func(owner string, now time.Duration, max int) transition {
		return func(m *outbox.Message) error { return m.MarkFailed(owner, at(now), "boom", at(now+2*time.Second), max) }
	}
	release := func(owner string) transition { return func(m *outbox.Message) error { return m.Release(owner) } }
	replay := func(m *outbox.Message) error { return m.Replay(at(time.Hour)) }

	cases := []struct {
		name string
		from outbox.Status
		do   transition
		to   outbox.Status // "" means: illegal, must fail and change nothing
		err  error
	}{
		{"claim pending", outbox.Pending, claim("relay-1", 0), outbox.InFlight, nil},
		{"claim failed when due", outbox.Failed, claim("relay-1", 10*time.Second), outbox.InFlight, nil},
		{"claim failed before due", outbox.Failed, claim("relay-1", 9*time.Second), "", outbox.ErrIllegalTransition},
		{"claim in flight under live lease", outbox.InFlight, claim("relay-2", 29*time.Second), "", outbox.ErrIllegalTransition},
		{"take over expired lease", outbox.InFlight, claim("relay-2", 30*time.Second), outbox.InFlight, nil},
		{"claim sent", outbox.Sent, claim("relay-1", time.Hour), "", outbox.ErrIllegalTransition},
		{"claim dead letter", outbox.DeadLetter, claim("relay-1", time.Hour), "", outbox.ErrIllegalTransition},
		{"mark sent by holder", outbox.InFlight, markSent("relay-1", time.Second), outbox.Sent, nil},
		{"mark sent by other relay", outbox.InFlight, markSent("relay-2", time.Second), "", outbox.ErrLeaseLost},
		{"mark sent after lease expired", outbox.InFlight, markSent("relay-1", 30*time.Second), "", outbox.ErrLeaseLost},
		{"mark pending sent", outbox.Pending, markSent("relay-1", 0), "", outbox.ErrIllegalTransition},
		{"mark dead letter sent", outbox.DeadLetter, markSent("relay-1", 0), "", outbox.ErrIllegalTransition},
		{"mark sent twice", outbox.Sent, markSent("relay-1", 0), "", outbox.ErrIllegalTransition},
		{"mark failed", outbox.InFlight, markFailed("relay-1", time.Second, 10), outbox.Failed, nil},
		{"mark failed at max attempts", outbox.InFlight, markFailed("relay-1", time.Second, 1), outbox.DeadLetter, nil},
		{"mark failed by other relay", outbox.InFlight, markFailed("relay-2", time.Second, 10), "", outbox.ErrLeaseLost},
		{"mark sent message failed", outbox.Sent, markFailed("relay-1", 0, 10), "", outbox.ErrIllegalTransition},
		{"release own claim", outbox.InFlight, release("relay-1"), outbox.Pending, nil},
		{"release other's claim", outbox.InFlight, release("relay-2"), "", outbox.ErrIllegalTransition},
		{"release pending", outbox.Pending, release("relay-1"), "", outbox.ErrIllegalTransition},
		{"release sent", outbox.Sent, release("relay-1"), "", outbox.ErrIllegalTransition},
		{"replay dead letter", outbox.DeadLetter, replay, outbox.Pending, nil},
		{"replay sent", outbox.Sent, replay, "", outbox.ErrIllegalTransition},
		{"replay failed", outbox.Failed, replay, "", outbox.ErrIllegalTransition},
		{"replay pending", outbox.Pending, replay, "", outbox.ErrIllegalTransition},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := base(c.from)
			before := m
			err := c.do(&m)
			if c.to == "" {
				if !errors.Is(err, c.err) {
					t.Fatalf("err = %v, want %v", err, c.err)
				}
				if m != before {
					t.Fatalf("an illegal transition changed the message:\n before %+v\n after  %+v", before, m)
				}
				return
			}
			if err != nil {
				t.Fatalf("legal transition failed: %v", err)
			}
			if m.Status != c.to {
				t.Fatalf("status = %s, want %s", m.Status, c.to)
			}
		})
	}
}

func TestTransitionDetails(t *testing.T) {
	m := base(outbox.InFlight)
	if err := m.MarkFailed("relay-1", t0.Add(time.Second), "broker unavailable", t0.Add(3*time.Second), 10); err != nil {
		t.Fatal(err)
	}
	if m.Attempts != 1 || m.LastError != "broker unavailable" || !m.NextAttemptAt.Equal(t0.Add(3*time.Second)) || m.LeaseOwner != "" {
		t.Fatalf("after MarkFailed: %+v", m)
	}
	dead := base(outbox.DeadLetter)
	if err := dead.Replay(t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if dead.Attempts != 0 || dead.Replays != 1 {
		t.Fatalf("after Replay: attempts %d, replays %d; want 0 and 1", dead.Attempts, dead.Replays)
	}
	sent := base(outbox.InFlight)
	sent.LastError = "earlier failure"
	if err := sent.MarkSent("relay-1", t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if !sent.SentAt.Equal(t0.Add(time.Second)) || sent.LastError != "" || sent.LeaseOwner != "" {
		t.Fatalf("after MarkSent: %+v", sent)
	}
}
