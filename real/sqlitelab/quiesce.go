package sqlitelab

import (
	"database/sql"
	"fmt"
	"time"

	"outboxlab/outbox"
)

// watcher is the parent's view of the order database and the broker while
// the system runs.
type watcher struct {
	orders orderDB
	broker *sql.DB
	cdc    bool // the relay reads the WAL: nothing in the outbox is ever due
}

func (r *run) watch() (*watcher, error) {
	orders, err := parentOrders(r.cfg.Dir, r.cfg.Postgres)
	if err != nil {
		return nil, err
	}
	brk, err := open(r.cfg.Dir, BrokerFile)
	if err != nil {
		orders.done()
		return nil, err
	}
	return &watcher{orders: orders, broker: brk, cdc: r.variant.cdc}, nil
}

func (w *watcher) close() {
	w.orders.done()
	w.broker.Close()
}

// toSend counts the messages a relay is yet to take before t: the outbox
// messages due (see due), or, for the CDC relay, the messages committed in
// transactions its slot has not confirmed (the simulator's cdc relay: the
// commit log past its offset).
func (w *watcher) toSend(t time.Time) (int, error) {
	if !w.cdc {
		return due(w.orders.DB, t)
	}
	var n int
	err := w.orders.QueryRow(`SELECT COUNT(*) FROM commit_log c, pg_replication_slots s
		WHERE s.slot_name = `+slotName+` AND c.tbl = $1 AND c.body IS NOT NULL AND c.lsn >= s.confirmed_flush_lsn`, outbox.Table).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("sqlitelab: %w", err)
	}
	return n, nil
}

// unacked counts the broker's messages not acknowledged.
func (w *watcher) unacked() (int, error) {
	var n int
	if err := w.broker.QueryRow(`SELECT COUNT(*) FROM log WHERE acked = 0`).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlitelab: %w", err)
	}
	return n, nil
}

// waitUntilTaken waits until the relays took every message there is to
// take (see untaken), at most ten seconds (a relay that was killed starts
// again at once, but a busy machine may take seconds to start it).
func (r *run) waitUntilTaken(w *watcher) error {
	deadline := time.Now().Add(10 * time.Second)
	for ; time.Now().Before(deadline); time.Sleep(3 * time.Millisecond) {
		var n int
		var err error
		if w.cdc {
			n, err = w.toSend(time.Now())
		} else {
			n, err = r.untaken(w.orders.DB, deadline)
		}
		if err != nil || n == 0 {
			return err
		}
	}
	return nil
}

// untaken counts the outbox messages the relays are yet to claim, by t:
// every PENDING or FAILED message of an order whose oldest unsent message
// is due by t, or is in a live relay's hands (see holding: the relay marks
// it in milliseconds, and then claims the ones behind it). An order whose
// oldest unsent message is a dead letter, waits out a backoff past t, or
// is held past t by a relay that died or froze (the claim no-inflight-
// recovery never recovers) is blocked, and the parent does not wait for
// it. The simulator's relay claims a message within milliseconds of its
// commit and the next command comes a second later, so each of its claims
// there holds one message; waiting only for what was due now was not
// enough: an amendment waiting behind its order's first message, in
// flight, and the next order's message were claimed together, and a crash
// after the first one's mark left the second where no-inflight-recovery's
// eternal claim keeps it (STUCK, where the simulator says OK). A claim
// counted as in flight for two seconds after it was made, whoever held it,
// made each run at relay.after-claim of no-inflight-recovery wait two
// seconds for the dead relay's claim.
func (r *run) untaken(db *sql.DB, t time.Time) (int, error) {
	unsent, err := scanMessages(db, `SELECT body FROM outbox WHERE status <> 'SENT' ORDER BY seq`)
	if err != nil {
		return 0, err
	}
	n, seen, blocked := 0, map[string]bool{}, map[string]bool{}
	for _, m := range unsent {
		agg := m.Event.AggregateID
		if !seen[agg] {
			seen[agg] = true
			at, ok := m.ClaimableAt()
			blocked[agg] = !r.holding(m) && (!ok || !at.Before(t))
		}
		if !blocked[agg] && (m.Status == outbox.Pending || m.Status == outbox.Failed) {
			n++
		}
	}
	return n, nil
}

// holding reports whether m is in a live relay's hands: IN_FLIGHT, claimed
// by the process now running under the claim's owner name, which is alive
// and not frozen, and is sending and marking it.
func (r *run) holding(m outbox.Message) bool {
	if m.Status != outbox.InFlight {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.procs[m.LeaseOwner]
	return p != nil && p.alive && !p.frozen && !m.ClaimedAt.Before(p.started)
}

// due counts the outbox messages a relay may claim before t, as
// the lab's relay adapter (variant.RelayAdapter.NextWake) sees them: the oldest unsent message of each
// aggregate (its later ones wait behind it), if it is claimable by then.
func due(db *sql.DB, t time.Time) (int, error) {
	unsent, err := scanMessages(db, `SELECT body FROM outbox WHERE status <> 'SENT' ORDER BY seq`)
	if err != nil {
		return 0, err
	}
	n, seen := 0, map[string]bool{}
	for _, m := range unsent {
		if seen[m.Event.AggregateID] {
			continue
		}
		seen[m.Event.AggregateID] = true
		if at, ok := m.ClaimableAt(); ok && at.Before(t) {
			n++
		}
	}
	return n, nil
}

// quiesce waits until nothing is left to do before the deadline, five
// polls in a row: every stall over, every message in the broker
// acknowledged, and no outbox message a relay may claim before the
// deadline (SENT, a dead letter, or a claim whose lease outlasts it). That
// is the simulator's "nothing due". It reports false, and what was still
// going on, if that did not happen within cfg.Quiesce, or if nothing moved
// for three seconds while what is left to send could be claimed now (no
// backoff, no lease to wait for, no CDC slot behind) and every relay has
// started (a CDC relay restarted after a kill waits for its slot): a
// message the relays pass over (offset-by-id's, below its offset) is never
// taken, and waiting the whole 20 s for it made each such run take 20 s.
func (r *run) quiesce() (bool, string, error) {
	w, err := r.watch()
	if err != nil {
		return false, "", err
	}
	defer w.close()
	deadline := time.Now().Add(r.cfg.Quiesce)
	var s quiesceState
	lastChange, lastPulse := time.Now(), pulse{}
	for quietPolls := 0; time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if err := r.failure(); err != nil {
			return false, "", err
		}
		if err := r.poll(w, deadline, &s); err != nil {
			return false, "", fmt.Errorf("sqlitelab: quiesce: %w", err)
		}
		if s.quiet() {
			quietPolls++
		} else {
			quietPolls = 0
		}
		if quietPolls == 5 {
			return true, "", nil
		}
		// Stuck: nothing moved for 3 s while all that is left could be
		// claimed all along (a message whose backoff ran out a moment ago
		// is about to be taken).
		waiting := s.inHand > 0 || s.stalls > 0 || s.dueLater > 0 || !r.allReady()
		if s.pulse != lastPulse || waiting {
			lastChange, lastPulse = time.Now(), s.pulse
		}
		if time.Since(lastChange) > 3*time.Second {
			return false, fmt.Sprintf("nothing moved for 3 s, and %s", s), nil
		}
	}
	return false, fmt.Sprintf("after %s, %s", r.cfg.Quiesce, s), nil
}

// quiesceState is what one poll of quiesce found.
type quiesceState struct {
	// dueNow counts the messages still to send before the deadline, and
	// dueLater those of them that cannot be claimed yet.
	dueNow, dueLater, unacked, inHand, stalls int
	pulse                                     pulse
}

func (s quiesceState) quiet() bool {
	return s.dueNow == 0 && s.unacked == 0 && s.inHand == 0 && s.stalls == 0
}

func (s quiesceState) String() string {
	return fmt.Sprintf("%d outbox message(s) still to send, %d in a live relay's hands, %d not acknowledged in the broker, %d stall(s) not over",
		s.dueNow, s.inHand, s.unacked, s.stalls)
}

// pulse is what changes while the system works: the order database's
// commits, what the broker stored and what billing acknowledged.
type pulse struct{ commits, published, acked int }

func (r *run) poll(w *watcher, deadline time.Time, s *quiesceState) error {
	var err error
	if s.dueNow, err = w.toSend(deadline); err != nil {
		return err
	}
	// The CDC relay's slot may lag behind the WAL of the whole server (its
	// decoder reads every database's), so what it has not confirmed counts
	// as yet to come, and only the deadline ends the wait.
	s.dueLater = s.dueNow
	if !w.cdc {
		now, err := w.toSend(time.Now())
		if err != nil {
			return err
		}
		s.dueLater = s.dueNow - now
		if s.inHand, err = r.inHand(w.orders.DB); err != nil {
			return err
		}
	}
	if s.unacked, err = w.unacked(); err != nil {
		return err
	}
	r.mu.Lock()
	s.stalls = r.stallsPending
	r.mu.Unlock()
	if err := w.orders.QueryRow(`SELECT COALESCE(MAX(n), 0) FROM commit_log`).Scan(&s.pulse.commits); err != nil {
		return err
	}
	return w.broker.QueryRow(`SELECT COUNT(*), COALESCE(SUM(acked), 0) FROM log`).Scan(&s.pulse.published, &s.pulse.acked)
}

// inHand counts the messages a live relay holds in flight (see holding):
// the simulator's relay in the middle of its step. Between two sends of
// its batch nothing may be due and the broker may have acknowledged
// everything; the check must not run then (it found three messages LOST
// that the relay was about to send, under load). The claims of a relay
// that died are not in anyone's hands: the verdict judges them.
func (r *run) inHand(db *sql.DB) (int, error) {
	held, err := scanMessages(db, `SELECT body FROM outbox WHERE status = 'IN_FLIGHT'`)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range held {
		if r.holding(m) {
			n++
		}
	}
	return n, nil
}
