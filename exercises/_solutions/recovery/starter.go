package recovery

import (
	"errors"
	"fmt"

	"outboxlab/outbox"
	"outboxlab/store"
)

// Recover releases the claims this relay held before its crash, and only
// those: another relay's claim is live until its lease runs out, and then
// the other relays take it over in their claims.
func (r *relay) Recover() error {
	tx := r.env.OrderDB.Begin(r.env.Owner)
	defer tx.Rollback()
	released := 0
	tx.ScanIndex(outbox.Table, outbox.IndexUnsent, func(_ string, v any) bool {
		m := v.(outbox.Message)
		if m.Status == outbox.InFlight && m.LeaseOwner == r.env.Owner {
			if err := m.Release(r.env.Owner); err == nil {
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
