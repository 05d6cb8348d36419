package recovery

import (
	"errors"
	"fmt"

	"outboxlab/outbox"
	"outboxlab/store"
)

// Recover releases IN_FLIGHT claims after a restart.
func (r *relay) Recover() error {
	tx := r.env.OrderDB.Begin(r.env.Owner)
	defer tx.Rollback()
	released := 0
	tx.ScanIndex(outbox.Table, outbox.IndexUnsent, func(_ string, v any) bool {
		m := v.(outbox.Message)
		// TODO: this releases every IN_FLIGHT message. Which of them may
		// this relay give back?
		if m.Status == outbox.InFlight {
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
