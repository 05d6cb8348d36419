package sim

import (
	"fmt"
	"time"

	"outboxlab/domain"
	"outboxlab/outbox"
	"outboxlab/store"
)

// installHistory writes n SENT messages into the outbox before the run
// begins: a year of traffic nobody cleaned up, created and sent evenly
// over the 365 days before Epoch, in one commit of its own, which the
// trace does not tell (Config.History).
func (w *world) installHistory(n int) error {
	if n == 0 {
		return nil
	}
	if !w.orderDB.HasTable(outbox.Table) {
		return fmt.Errorf("sim: History = %d, but %s has no outbox table to hold it", n, w.cfg.Variant.Name)
	}
	const year = 365 * 24 * time.Hour
	tx := w.orderDB.Begin("history")
	defer tx.Rollback()
	for i := range n {
		at := Epoch.Add(-year + time.Duration(i)*(year/time.Duration(n)))
		id := fmt.Sprintf("h-%07d", i+1)
		event := domain.OrderAccepted{OrderID: id, Sequence: 1, Total: domain.Money{Minor: 1000, Currency: "EUR"}, AcceptedAt: at}
		rec, err := domain.Encode(event)
		if err != nil {
			return fmt.Errorf("sim: history: %w", err)
		}
		m := outbox.Message{Key: store.SeqKey("", tx.NextVal(outbox.Sequence)), ID: "e-" + id, Event: rec,
			CreatedAt: at, NextAttemptAt: at, Status: outbox.Sent, SentAt: at.Add(time.Second)}
		if err := tx.Insert(outbox.Table, m.Key, m); err != nil {
			return fmt.Errorf("sim: history: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sim: history: %w", err)
	}
	w.seen = w.mark() // the trace tells the run, not the year before it
	return nil
}
