package sqlitelab

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/outbox"
)

// relay is the reference relay on SQLite: claim a batch under a lease in one
// transaction, send each message, record SENT only after the broker
// acknowledged it. The lifecycle's rules are outbox.Message's own methods
// (Claim, MarkSent, MarkFailed, Release); only reading and writing the rows
// is SQL here.
type relay struct {
	db     orderDB
	broker durableBroker
	gate   effect.Gate
	cfg    outbox.Config
	// variant says which mistake, if any, the relay makes.
	variant Variant
	// position is what a relay that claims only past a position keeps in
	// memory (see positions.go): the highest id sent, or a transaction-id
	// horizon.
	position string
	log      func(format string, args ...any)
}

// recover releases the claims this relay held when its process died, as
// outbox.Relay.Recover does.
func (r *relay) recover() error {
	tx, err := beginOrders(r.db, r.cfg.Owner)
	if err != nil {
		return err
	}
	defer tx.rollback()
	msgs, err := tx.unsent()
	if err != nil {
		return err
	}
	released := 0
	for _, m := range msgs {
		owner := r.cfg.Owner
		if r.variant.recoverAll {
			// MISTAKE (recover-all): every IN_FLIGHT message, whoever holds
			// it; the reference releases only its own, for the others'
			// claims are live.
			owner = m.LeaseOwner
		}
		if m.Status != outbox.InFlight || m.LeaseOwner != owner {
			continue
		}
		cur, ok, err := tx.getMessage(m.Key) // locked: another relay may be claiming it as its lease expired
		if err != nil {
			return err
		}
		if ok && cur.Release(owner) == nil {
			if err := tx.putMessage(cur); err != nil {
				return err
			}
			released++
		}
	}
	if released == 0 {
		return nil
	}
	if err := r.gate.Cross(outbox.BoundaryRecover, tx.commit); err != nil {
		return err
	}
	r.log("recovered %d claim(s)", released)
	return nil
}

// step claims one batch of due messages and sends them in order; it reports
// whether it claimed anything.
func (r *relay) step() (bool, error) {
	batch, err := r.claimDue()
	if err != nil || len(batch) == 0 {
		return false, err
	}
	for i, m := range batch {
		if r.variant.markBeforeSend {
			// MISTAKE (mark-before-send): SENT is recorded before the broker
			// has the message: a crash after this commit loses it.
			if err := r.recordSent(m); err != nil {
				return true, err
			}
		}
		err := r.gate.Cross(outbox.BoundarySend, func() error {
			return r.broker.Publish(broker.Envelope{ID: m.ID, Event: m.Event})
		})
		if err != nil {
			r.log("send %s failed: %v", m.ID, err)
			return true, r.recordFailure(m, err, batch[i+1:])
		}
		r.log("sent %s %s#%d", m.ID, m.Event.AggregateID, m.Event.Sequence)
		if !r.variant.markBeforeSend {
			if err := r.recordSent(m); err != nil {
				return true, err
			}
		}
	}
	return true, nil
}

// claimDue is outbox.Relay.ClaimDue: up to BatchSize due messages, in
// order, an aggregate's later messages held while an earlier one cannot be
// claimed. Each message is claimed as it is read again under a lock, so two
// relays never claim one message: on SQLite, BEGIN IMMEDIATE holds the one
// write lock from the first read; on PostgreSQL, FOR UPDATE SKIP LOCKED
// locks the row, and a row another relay's transaction holds is passed
// over (its aggregate waits for the next poll) instead of waited for.
func (r *relay) claimDue() ([]outbox.Message, error) {
	// A look first, in one statement: with nothing unsent, a claim's
	// transaction would find nothing (variant.RelayAdapter.NextWake spares
	// the reference the same poll).
	var unsent bool
	if err := r.db.QueryRow(`SELECT EXISTS (SELECT 1 FROM outbox WHERE status <> 'SENT')`).Scan(&unsent); err != nil || !unsent {
		return nil, err
	}
	now := time.Now().UTC()
	tx, err := beginOrders(r.db, r.cfg.Owner)
	if err != nil {
		return nil, err
	}
	defer tx.rollback()
	msgs, err := r.unsentPastPosition(tx)
	if err != nil {
		return nil, err
	}
	var batch []outbox.Message
	blocked := map[string]bool{}
	for _, seen := range msgs {
		agg := seen.Event.AggregateID
		if blocked[agg] {
			continue
		}
		m, ok, err := tx.lockUnsent(seen.Key)
		if r.variant.claimWithoutLock {
			// MISTAKE (claim-without-lock): the row is read without a lock,
			// so another relay may claim it between this read and this
			// transaction's commit, and both send it. Harmless on SQLite,
			// whose one writer runs claims one after another; on
			// PostgreSQL (READ COMMITTED) two relays both claim.
			m, ok, err = tx.readUnsent(seen.Key, "")
		}
		if err != nil {
			return nil, err
		}
		if !ok || m.Claim(r.cfg.Owner, now, now.Add(r.cfg.Lease)) != nil {
			blocked[agg] = true
			continue
		}
		if err := tx.putMessage(m); err != nil {
			return nil, err
		}
		batch = append(batch, m)
		if len(batch) == r.cfg.BatchSize {
			break
		}
	}
	if len(batch) == 0 {
		return nil, nil
	}
	if err := r.gate.Cross(outbox.BoundaryClaim, tx.commit); err != nil {
		return nil, fmt.Errorf("outbox: claim: %w", err)
	}
	for _, m := range batch {
		r.log("claimed %s %s#%d until %s", m.ID, m.Event.AggregateID, m.Event.Sequence, m.LeaseUntil.Format("15:04:05.000"))
	}
	return batch, nil
}

// recordSent marks m SENT if this relay still holds its lease (the fence);
// otherwise it changes nothing: another relay owns the message now.
func (r *relay) recordSent(m outbox.Message) error {
	now := time.Now().UTC()
	tx, err := beginOrders(r.db, r.cfg.Owner)
	if err != nil {
		return err
	}
	defer tx.rollback()
	cur, ok, err := tx.getMessage(m.Key)
	if err != nil || !ok {
		return err
	}
	if r.variant.noFencing {
		// MISTAKE (no-fencing): SENT is written without MarkSent's lease
		// check. A relay that lost its lease overwrites the new owner's
		// outcome.
		cur.Status, cur.SentAt, cur.LastError = outbox.Sent, now, ""
		cur.LeaseOwner, cur.ClaimedAt, cur.LeaseUntil = "", time.Time{}, time.Time{}
	} else if err := cur.MarkSent(r.cfg.Owner, now); err != nil {
		if errors.Is(err, outbox.ErrLeaseLost) || errors.Is(err, outbox.ErrIllegalTransition) {
			r.log("mark of %s refused: %v", m.ID, err)
			return nil
		}
		return fmt.Errorf("outbox: %w", err)
	}
	if err := tx.putMessage(cur); err != nil {
		return err
	}
	if err := r.gate.Cross(outbox.BoundaryMark, tx.commit); err != nil {
		return err
	}
	r.log("marked %s SENT", m.ID)
	return r.movePosition()
}

// recordFailure marks m FAILED (or DEAD_LETTER) and releases the rest of
// the batch, in one transaction.
func (r *relay) recordFailure(m outbox.Message, cause error, unsent []outbox.Message) error {
	now := time.Now().UTC()
	tx, err := beginOrders(r.db, r.cfg.Owner)
	if err != nil {
		return err
	}
	defer tx.rollback()
	if cur, ok, err := tx.getMessage(m.Key); err != nil {
		return err
	} else if ok && cur.MarkFailed(r.cfg.Owner, now, cause.Error(), now.Add(r.cfg.Backoff(cur.Attempts+1, 0)), r.cfg.MaxAttempts) == nil {
		if err := tx.putMessage(cur); err != nil {
			return err
		}
	}
	for _, u := range unsent {
		if cur, ok, err := tx.getMessage(u.Key); err != nil {
			return err
		} else if ok && cur.Release(r.cfg.Owner) == nil {
			if err := tx.putMessage(cur); err != nil {
				return err
			}
		}
	}
	return r.gate.Cross(outbox.BoundaryMark, tx.commit)
}
