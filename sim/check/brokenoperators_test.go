package check_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"outboxlab/alternatives/cdc"
	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/internal/longtest"
	"outboxlab/lab/explore"
	"outboxlab/lab/labtest"
	"outboxlab/lab/verdict"
	"outboxlab/outbox"
	"outboxlab/store"
	"outboxlab/variant"
)

// TestTheLabCatchesBrokenOperatorCode: the operator's work after quiesce
// (sim.DefaultOperations) runs in every run; at the rejected row it meets
// two dead letters. Each case is the reference's operator code (its
// retention cleanup, its replay) with one plausible slip, caught on the
// path of the operator's work it breaks. Each was OK when the operator
// cleaned up twice (at once and just past the retention period) and
// replayed once, after every fix, the broker up (tried). (A cleanup by
// creation age is a slip of mistakes' own: TestTheLabCatchesSlips.)
func TestTheLabCatchesBrokenOperatorCode(t *testing.T) {
	cases := []struct {
		name   string
		v      variant.Variant
		want   variant.Outcome
		detail string
	}{
		{
			name: "a cleanup that deletes SENT messages two hours early",
			v: labtest.Cleaning("cleanup-early", func(m outbox.Message, cutoff time.Time) bool {
				return m.Status == outbox.Sent && m.SentAt.Before(cutoff.Add(2*time.Hour))
			}),
			want:   variant.Unsafe,
			detail: "deleted 167h0m0s after it was SENT",
		},
		{
			name: "a cleanup that archives every message older than four retention periods",
			v: labtest.Cleaning("cleanup-archives", func(m outbox.Message, cutoff time.Time) bool {
				old := cutoff.Add(-3 * outbox.DefaultConfig("").Retention)
				return m.Status == outbox.Sent && m.SentAt.Before(cutoff) || m.CreatedAt.Before(old)
			}),
			want:   variant.Lost,
			detail: "deleted while DEAD_LETTER: only a SENT message may go",
		},
		{
			name:   "a CDC replay that deletes the dead letter before the broker confirmed its send",
			v:      cdcDeletingReplay(),
			want:   variant.Lost,
			detail: "and it vanished: it is neither a dead letter again, nor delivered, nor waiting to be sent",
		},
		{
			name:   "a replay that puts a dead letter back without resetting its attempts",
			v:      replaying("replay-keeps-attempts", keepAttempts, false),
			want:   variant.Stuck,
			detail: "the operator fixed its cause and replayed message",
		},
		{
			name:   "a selective replay by order and type that does not ask for DEAD_LETTER",
			v:      replaying("replay-any-status", anyStatus, true),
			want:   variant.Unsafe,
			detail: "left the terminal state SENT for PENDING",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			outcome, lines := labtest.Cell(t, c.v, "rejected")
			if outcome != c.want || !strings.Contains(lines, c.detail) {
				t.Errorf("%s at rejected: %s, want %s with %q:\n%s", c.v.Name, outcome, c.want, c.detail, lines)
			}
		})
	}
}

// replaying is the reference whose operator's replay puts back what put
// says, in the rows that match its filter: its selective replay, and with
// selectiveOnly not its replay of everything.
func replaying(name string, put func(m *outbox.Message, now time.Time) bool, selectiveOnly bool) variant.Variant {
	v := variant.Outbox()
	v.Name = name
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return replayer{RelayAdapter: variant.AdaptRelay(r), env: env, put: put, selectiveOnly: selectiveOnly}, nil
	}
	return v
}

type replayer struct {
	*variant.RelayAdapter
	env           variant.Env
	put           func(*outbox.Message, time.Time) bool
	selectiveOnly bool
}

func (r replayer) ReplayDeadLetters() (int, error) {
	if r.selectiveOnly {
		return r.RelayAdapter.ReplayDeadLetters()
	}
	return r.ReplayDeadLettersOf("", "")
}

func (r replayer) ReplayDeadLettersOf(aggregateID, eventType string) (int, error) {
	now := r.env.DBClock.Now()
	tx := r.env.OrderDB.Begin(r.env.Owner)
	defer tx.Rollback()
	n := 0
	tx.Scan(outbox.Table, func(key string, v any) bool {
		m := v.(outbox.Message)
		if (aggregateID == "" || m.Event.AggregateID == aggregateID) && (eventType == "" || m.Event.Type == eventType) && r.put(&m, now) {
			tx.Put(outbox.Table, key, m)
			n++
		}
		return true
	})
	if n == 0 {
		return 0, nil
	}
	return n, r.env.Gate.Cross(effect.Boundary{Process: "relay", Effect: "replay"}, tx.Commit)
}

// keepAttempts replays a dead letter as the reference does, but keeps
// its count of failed attempts: the first failure after the replay makes
// it a dead letter again.
func keepAttempts(m *outbox.Message, now time.Time) bool {
	attempts := m.Attempts
	if m.Replay(now) != nil {
		return false
	}
	m.Attempts = attempts
	return true
}

// anyStatus replays every message of the order and type ("UPDATE outbox
// SET status = 'PENDING' WHERE aggregate_id = ? AND type = ?"), whatever
// its status: harmless the first time, when the one that matches is the
// dead letter; run again, it sends what was sent.
func anyStatus(m *outbox.Message, now time.Time) bool {
	m.Status, m.Attempts, m.NextAttemptAt, m.Replays = outbox.Pending, 0, now, m.Replays+1
	m.LeaseOwner, m.LastError = "", ""
	return true
}

// cdcDeletingReplay is the CDC relay whose replay takes each dead letter
// out of its table first and then publishes it, and goes on when the
// broker refuses: a refused message is gone.
func cdcDeletingReplay() variant.Variant {
	v := cdc.Variant()
	v.Name = "cdc-replay-deletes-first"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r := &cdc.Relay{DB: env.OrderDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Owner: env.Owner, Config: outbox.DefaultConfig(env.Owner)}
		return deletingReplay{LabRelay: cdc.LabRelay{Relay: r}, env: env}, nil
	}
	return v
}

type deletingReplay struct {
	cdc.LabRelay
	env variant.Env
}

func (r deletingReplay) ReplayDeadLetters() (int, error) {
	tx := r.env.OrderDB.Begin(r.env.Owner)
	defer tx.Rollback()
	dead := store.Values[outbox.Message](r.env.OrderDB, cdc.TableDead)
	for _, m := range dead {
		tx.Delete(cdc.TableDead, m.ID)
	}
	if len(dead) == 0 {
		return 0, nil
	}
	if err := r.env.Gate.Cross(cdc.BoundaryOffset, tx.Commit); err != nil {
		return 0, err
	}
	n := 0
	for _, m := range dead {
		err := r.env.Gate.Cross(outbox.BoundarySend, func() error { return r.env.Broker.Publish(broker.Envelope{ID: m.ID, Event: m.Event}) })
		if errors.Is(err, effect.ErrCrashed) {
			return n, fmt.Errorf("cdc: replay: %w", err)
		}
		if err == nil {
			n++
		}
	}
	return n, nil
}

// TestExplorationCatchesACleanupInAnAgeWindow: a cleanup that deletes
// SENT messages in an age window well below the retention period (one
// to two days old, "yesterday's partition") passes the matrix, whose
// operator cleans up at once, hours later and around the retention
// period only; exploration's operator cleans up at drawn ages and meets
// the window. (Without agedCleanups it passed every stage at depth
// course, tried.)
func TestExplorationCatchesACleanupInAnAgeWindow(t *testing.T) {
	v := labtest.Cleaning("cleanup-day-window", func(m outbox.Message, cutoff time.Time) bool {
		now := cutoff.Add(outbox.DefaultConfig("").Retention)
		age := now.Sub(m.SentAt)
		return m.Status == outbox.Sent && (m.SentAt.Before(cutoff) || age >= 24*time.Hour && age < 48*time.Hour)
	})
	labtest.CaughtByExploration(t, v, variant.Unsafe, "after it was SENT", longtest.Long(t, "long_explore"))
}

// TestExplorationFindsAnHourWindowAtTenSeeds: a cleanup that deletes
// SENT messages in an age window of one hour (at 6 h, 30 h or 150 h of
// the 7 days' retention) is found within the course's 1,000 schedules at
// each of ten seeds (measured: first at schedule 16 to 793; a window of
// ten minutes at 5 of 10 seeds). 30 explorations: .ci/run's long step.
func TestExplorationFindsAnHourWindowAtTenSeeds(t *testing.T) {
	longtest.Only(t, "long_explore", "TestExplorationCatchesACleanupInAnAgeWindow at one seed")
	for _, from := range []time.Duration{6 * time.Hour, 30 * time.Hour, 150 * time.Hour} {
		v := labtest.Cleaning(fmt.Sprintf("cleanup-window-%s", from), func(m outbox.Message, cutoff time.Time) bool {
			age := cutoff.Add(outbox.DefaultConfig("").Retention).Sub(m.SentAt)
			return m.Status == outbox.Sent && (m.SentAt.Before(cutoff) || age >= from && age < from+time.Hour)
		})
		for seed := uint64(1); seed <= 10; seed++ {
			f, err := explore.Explore(v, verdict.CourseRuns, seed, explore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if f == nil || f.Result.Outcome != variant.Unsafe {
				t.Errorf("%s at seed %d: not found UNSAFE in %d schedules", v.Name, seed, verdict.CourseRuns)
			}
		}
	}
}

// TestAReplayThatResetsFailedRowsIsCaught: an operator's replay of dead
// letters that resets FAILED rows too ("UPDATE outbox SET status =
// 'PENDING', attempts = 0 WHERE status IN ('DEAD_LETTER', 'FAILED')")
// passed: the operator replayed only once the system was quiet, when
// nothing is FAILED. At restarts-after-dead-letter the operator now
// replays the dead letters during the run, once o-1#1 is one and while
// the broker still refuses o-2#1, which the relay retries under its
// backoff: the replay erases o-2#1's count of failed sends and its next
// attempt, and the relay sends it again at once, beyond its policy.
// STORM, naming the row the replay had no business with.
func TestAReplayThatResetsFailedRowsIsCaught(t *testing.T) {
	resetsFailed := func(m *outbox.Message, now time.Time) bool {
		if m.Status != outbox.DeadLetter && m.Status != outbox.Failed {
			return false
		}
		m.Status, m.Attempts, m.NextAttemptAt, m.Replays = outbox.Pending, 0, now, m.Replays+1
		return true
	}
	m := withAssumptions()
	i := 0
	for i < len(m.Points) && m.Points[i].ID != "restarts-after-dead-letter" {
		i++
	}
	for _, c := range []struct {
		v      variant.Variant
		want   variant.Outcome
		detail string // the first violation
	}{
		{replaying("replay-resets-failed", resetsFailed, false), variant.Storm,
			"STORM o-2#1: the operator's replay of the dead letters reset message e-c47af47f9b1eba85, which was FAILED, not a dead letter (7 failed sends, its next attempt at 00:14:30.193): it wrote it PENDING with 0 attempts, due at once, and the relay tries it again beyond its retry policy"},
		{variant.Outbox(), variant.OK, ""},
	} {
		cell, err := m.RunCell(c.v, m.Points[i])
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, v := range cell.Violations {
			lines = append(lines, v.String())
		}
		if cell.Outcome != c.want || c.detail != "" && (len(lines) == 0 || lines[0] != c.detail) {
			t.Errorf("%s at restarts-after-dead-letter: %s, want %s with %q:\n%s", c.v.Name, cell.Outcome, c.want, c.detail, strings.Join(lines, "\n"))
		}
	}
}
