package recovery

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"

	"outboxlab/exercises/internal/startertest"
	"outboxlab/internal/longtest"
	"outboxlab/lab/grade"
	"outboxlab/outbox"
	"outboxlab/store"
	"outboxlab/variant"
)

// hostClock is a fix that releases this relay's own claims and also any
// whose lease ran out by the relay's own clock: right while every clock
// is right, wrong when one runs ahead.
type hostClock struct{ *relay }

func (r hostClock) Recover() error {
	tx := r.env.OrderDB.Begin(r.env.Owner)
	defer tx.Rollback()
	released := 0
	tx.ScanIndex(outbox.Table, outbox.IndexUnsent, func(_ string, v any) bool {
		m := v.(outbox.Message)
		if m.Status == outbox.InFlight && (m.LeaseOwner == r.env.Owner || !r.env.Clock.Now().Before(m.LeaseUntil)) {
			if err := m.Release(m.LeaseOwner); err == nil {
				tx.Put(outbox.Table, m.Key, m)
				released++
			}
		}
		return true
	})
	if released == 0 {
		return nil
	}
	err := r.env.Gate.Cross(outbox.BoundaryRecover, tx.Commit)
	if err != nil && !errors.Is(err, store.ErrConflict) {
		return fmt.Errorf("recover: %w", err)
	}
	return nil
}

// TestAHostClockFixGetsTheClockHint grades the host-clock fix as the
// exercise does (at depth course: exploration finds it, with a relay's
// clock running ahead): the hint it prints asks whose clock judges the
// lease, not whose claims a relay may give back (the long job's: it
// grades for seconds).
func TestAHostClockFixGetsTheClockHint(t *testing.T) {
	longtest.Only(t, "long_german", "TestAHintFollowsTheCause, the hint's choice on its own")
	if err := flag.Set("lab.lang", "en"); err != nil {
		t.Fatal(err)
	}
	v := Variant()
	build := v.NewRelay
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := build(env)
		if err != nil {
			return nil, err
		}
		return hostClock{r.(*relay)}, nil
	}
	r := &startertest.Recorder{TB: t}
	grade.Grade(r, v, Grading)
	got := strings.Join(strings.Fields(strings.Join(r.Errors, "\n")), " ")
	if !strings.Contains(got, "UNSAFE") || !strings.Contains(got, "Whose clock says the lease ran out?") || strings.Contains(got, "The lease owner is in the message") {
		t.Errorf("the host-clock fix's grading does not give the clock's hint:\n%s", got)
	}
}
