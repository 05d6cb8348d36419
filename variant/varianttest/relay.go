package varianttest

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/outbox"
	"outboxlab/store"
	"outboxlab/variant"
)

// relaySlip names what the relay frame does wrong; "" is nothing.
type relaySlip struct{ name string }

// relaySlips are the relay frame's slips.
func relaySlips() []Slip {
	return slipsOf("relay", [][2]string{
		{"swallows-commit-errors", "logs the error of a claim or mark commit and goes on"},
		{"swallows-its-crash", "takes a send that returned effect.ErrCrashed for a failed send and goes on"},
		{"marks-before-sending", "marks a message SENT before the broker confirmed it"},
		{"ignores-its-lease", "marks SENT whether or not it still holds the lease"},
		{"keeps-the-rest", "keeps the rest of its batch claimed after a failed send"},
		{"never-pauses", "tries the next message at once after a failed send"},
		{"retries-at-once", "makes a failed message due again at once, without backoff"},
		{"returns-broker-errors", "hands the broker's error to its caller after recording it"},
		{"returns-lost-races", "hands a mark the database refused (another relay's) to its caller"},
		{"takes-timeouts-for-success", "takes a publish that timed out for one that arrived"},
		{"pauses-only-in-next-wake", "keeps its pause in NextWake, not in Step"},
		{"reads-the-host-clock", "judges leases by its host's clock"},
		{"gives-up-early", "dead-letters a message after two failed sends"},
		{"pauses-five-minutes", "pauses up to five minutes after failed sends"},
		{"panics-on-a-rejection", "panics when the broker refuses a message"},
		{"recovers-every-claim", "releases every IN_FLIGHT message when it restarts, not only its own"},
		{"panics-in-next-wake", "panics when asked when it wants to wake (NextWake not written yet)"},
		{"cannot-be-built", "fails to build (its configuration is refused)"},
	}, func(name string, from int) variant.Variant {
		v := variant.Outbox()
		v.NewRelay = newRelay(relaySlip{name}, from)
		return v
	})
}

// newRelay builds the relay frame with slip acting from its from-th
// occasion on.
func newRelay(slip relaySlip, from int) func(variant.Env) (variant.Relay, error) {
	return func(env variant.Env) (variant.Relay, error) {
		change := func(c *outbox.Config) {
			switch slip.name {
			case "gives-up-early":
				c.MaxAttempts = 2
			case "pauses-five-minutes":
				c.PauseCap = 5 * time.Minute
			}
		}
		cfg := outbox.DefaultConfig(env.Owner)
		change(&cfg)
		if slip.name == "cannot-be-built" {
			return nil, errors.New("relay: the broker's address is not configured")
		}
		var ref *outbox.Relay
		var err error
		if slip.name == "reads-the-host-clock" {
			ref, err = outbox.NewRelay(cfg, outbox.Deps{DB: env.OrderDB, Broker: env.Broker, Gate: env.Gate, Clock: env.Clock, Rand: env.Rand})
		} else {
			ref, err = variant.ReferenceRelay(env, change)
		}
		if err != nil {
			return nil, err
		}
		return &relay{RelayAdapter: variant.AdaptRelay(ref), env: env, cfg: cfg, slip: slip, occasions: occasions{from: from}}, nil
	}
}

// relay is a learner's relay on the reference's claim (ClaimDue) and
// recovery: it sends a batch in order and marks each message SENT, or,
// when the send fails, FAILED with the policy's backoff; it releases the
// rest of the batch and pauses as a whole (outbox.Config.Pause). Losing a
// race (a mark the database refuses) is routine. Its slip changes one of
// those.
type relay struct {
	*variant.RelayAdapter
	env         variant.Env
	cfg         outbox.Config
	slip        relaySlip
	occasions   occasions
	failed      int
	pausedUntil time.Time
}

// slipped reports whether the relay's slip is s and acts on this
// occasion.
func (r *relay) slipped(s string) bool { return r.slip.name == s && r.occasions.now() }

func (r *relay) Recover() error {
	if r.slip.name != "recovers-every-claim" {
		return r.RelayAdapter.Recover()
	}
	tx := r.env.OrderDB.Begin(r.env.Owner)
	defer tx.Rollback()
	released := false
	tx.ScanIndex(outbox.Table, outbox.IndexUnsent, func(_ string, v any) bool {
		if m := v.(outbox.Message); m.Status == outbox.InFlight && r.slipped("recovers-every-claim") && m.Release(m.LeaseOwner) == nil {
			tx.Put(outbox.Table, m.Key, m)
			released = true
		}
		return true
	})
	if !released {
		return nil
	}
	return r.commit(outbox.BoundaryRecover, tx)
}

func (r *relay) Step() (bool, error) {
	if r.env.DBClock.Now().Before(r.pausedUntil) && !r.slipped("pauses-only-in-next-wake") {
		return false, nil // the broker failed recently: do not hammer it
	}
	batch, err := r.ClaimDue()
	if err != nil || len(batch) == 0 {
		if err != nil && !errors.Is(err, effect.ErrCrashed) && r.slipped("swallows-commit-errors") {
			err = nil // "logged"
		}
		return false, err
	}
	if r.slipped("marks-before-sending") {
		if err := r.record(batch, nil, func(m *outbox.Message, now time.Time) error { return m.MarkSent(r.env.Owner, now) }); err != nil {
			return true, err
		}
	}
	for i, m := range batch {
		if stop, err := r.sendOne(m, batch[i+1:]); stop || err != nil {
			return true, err
		}
	}
	return true, nil
}

// sendOne sends m and records the outcome. After a failed send it records
// the failure, gives rest back, pauses, and says to stop the step.
func (r *relay) sendOne(m outbox.Message, rest []outbox.Message) (stop bool, err error) {
	sendErr := r.env.Gate.Cross(outbox.BoundarySend, func() error {
		return r.env.Broker.Publish(broker.Envelope{ID: m.ID, Event: m.Event})
	})
	if errors.Is(sendErr, broker.ErrTimeout) && r.slipped("takes-timeouts-for-success") {
		sendErr = nil
	}
	swallow := errors.Is(sendErr, effect.ErrCrashed) && r.slipped("swallows-its-crash")
	if errors.Is(sendErr, effect.ErrCrashed) && !swallow {
		return true, sendErr
	}
	if sendErr == nil {
		r.failed = 0
		return false, r.record([]outbox.Message{m}, nil, func(cur *outbox.Message, now time.Time) error {
			if err := cur.MarkSent(r.env.Owner, now); err == nil || !r.slipped("ignores-its-lease") {
				return err
			}
			cur.Status, cur.SentAt, cur.LastError = outbox.Sent, now, ""
			cur.LeaseOwner, cur.ClaimedAt, cur.LeaseUntil = "", time.Time{}, time.Time{}
			return nil
		})
	}
	if errors.Is(sendErr, broker.ErrRejected) && r.slipped("panics-on-a-rejection") {
		panic(fmt.Sprintf("cannot happen: %v", sendErr))
	}
	r.failed++
	if !r.slipped("never-pauses") {
		r.pausedUntil = r.env.DBClock.Now().Add(r.cfg.Pause(r.failed))
	}
	if r.slipped("keeps-the-rest") {
		rest = nil
	}
	err = r.record([]outbox.Message{m}, rest, func(cur *outbox.Message, now time.Time) error {
		retryAt := now.Add(r.cfg.Backoff(cur.Attempts+1, 0))
		if r.slipped("retries-at-once") {
			retryAt = now
		}
		return cur.MarkFailed(r.env.Owner, now, sendErr.Error(), retryAt, r.cfg.MaxAttempts)
	})
	switch {
	case swallow:
		return true, nil // "logged": the process is dead, and its step says nothing
	case err == nil && r.slipped("returns-broker-errors"):
		return true, sendErr
	}
	return true, err
}

// record changes each of msgs with change and gives release back, in one
// transaction at the mark boundary. A change the message refuses (the
// lease ran out) writes nothing: another relay owns it now.
func (r *relay) record(msgs, release []outbox.Message, change func(*outbox.Message, time.Time) error) error {
	now := r.env.DBClock.Now()
	tx := r.env.OrderDB.Begin(r.env.Owner)
	defer tx.Rollback()
	for _, m := range msgs {
		if cur, ok := outbox.Get(tx, m.Key); ok && change(&cur, now) == nil {
			tx.Put(outbox.Table, cur.Key, cur)
		}
	}
	for _, m := range release {
		if cur, ok := outbox.Get(tx, m.Key); ok && cur.Release(r.env.Owner) == nil {
			tx.Put(outbox.Table, cur.Key, cur)
		}
	}
	return r.commit(outbox.BoundaryMark, tx)
}

// commit commits tx at boundary b: a conflict is a race another relay
// won, routine.
func (r *relay) commit(b effect.Boundary, tx *store.Tx) error {
	err := r.env.Gate.Cross(b, tx.Commit)
	switch {
	case errors.Is(err, store.ErrConflict) && !r.slipped("returns-lost-races"):
		return nil
	case err != nil && !errors.Is(err, effect.ErrCrashed) && r.slipped("swallows-commit-errors"):
		return nil // "logged"
	}
	return err
}

func (r *relay) NextWake() (time.Time, bool) {
	if r.slipped("panics-in-next-wake") {
		panic("NextWake: not written yet")
	}
	at, ok := r.RelayAdapter.NextWake()
	if ok && at.Before(r.pausedUntil) {
		at = r.pausedUntil
	}
	return at, ok
}
