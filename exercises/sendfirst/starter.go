package sendfirst

import (
	"outboxlab/broker"
	"outboxlab/outbox"
)

// Step claims a batch, marks it SENT, then sends it.
func (r *relay) Step() (bool, error) {
	batch, err := r.ClaimDue()
	if err != nil || len(batch) == 0 {
		return false, err
	}
	// TODO: SENT is recorded before anything was sent.
	tx := r.env.OrderDB.Begin(r.env.Owner)
	defer tx.Rollback()
	for _, m := range batch {
		cur, ok := outbox.Get(tx, m.Key)
		if ok && cur.MarkSent(r.env.Owner, r.env.DBClock.Now()) == nil {
			tx.Put(outbox.Table, cur.Key, cur)
		}
	}
	if err := r.env.Gate.Cross(outbox.BoundaryMark, tx.Commit); err != nil {
		return true, err
	}
	for _, m := range batch {
		err := r.env.Gate.Cross(outbox.BoundarySend, func() error {
			return r.env.Broker.Publish(broker.Envelope{ID: m.ID, Event: m.Event})
		})
		if err != nil {
			return true, err
		}
	}
	return true, nil
}
