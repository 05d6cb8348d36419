package mistakes

import (
	"fmt"

	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/variant"
)

// CleanupByAge is the reference relay with one change in its retention
// cleanup: it deletes every message older than the retention period,
// whatever its status.
//
// WRONG: only SENT messages may go. A FAILED message is still to be sent,
// and a DEAD_LETTER waits for an operator who fixes its cause and replays
// it, perhaps weeks later. Deleted, it is gone without a trace: the change
// was committed, the broker never got it, and nothing says so any more.
//
// Chapter 001 ("Aufbewahrung und Bereinigung dürfen die Nachweisführung nicht
// vorzeitig zerstören"); chapter 003 (retention gives a replay window); chapter
// 000 section 5 (dead letters stay visible and replayable).
func CleanupByAge() variant.Variant {
	return variant.Variant{
		Name:    "cleanup-by-age",
		Summary: lang.Text{EN: "retention deletes every message older than seven days, dead letters included", DE: "die Aufbewahrung löscht jede Nachricht älter als sieben Tage, Dead Letters eingeschlossen"},
		Chapter: "001 \"Aufbewahrung und Bereinigung\", 003 retention, 000 section 5",
		Expect: map[string]variant.Outcome{
			"rejected": variant.Lost, // the dead letter is deleted before the operator can replay it
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			r, err := newRelay(env, nil)
			if err != nil {
				return nil, err
			}
			return &cleanupByAgeRelay{r}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

type cleanupByAgeRelay struct{ *relay }

// Cleanup is outbox.Relay.Cleanup with one condition changed. DO NOT COPY.
func (r *cleanupByAgeRelay) Cleanup() (int, error) {
	cutoff := r.Clock.Now().Add(-r.cfg.Retention)
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	n := 0
	tx.Scan(outbox.Table, func(key string, v any) bool {
		// MISTAKE: the age alone decides; the reference deletes only SENT
		// messages (m.Status == Sent && m.SentAt.Before(cutoff)).
		if m := v.(outbox.Message); m.CreatedAt.Before(cutoff) {
			tx.Delete(outbox.Table, key)
			n++
		}
		return true
	})
	if n == 0 {
		return 0, nil
	}
	if err := r.Gate.Cross(outbox.BoundaryCleanup, tx.Commit); err != nil {
		return 0, fmt.Errorf("outbox: cleanup: %w", err)
	}
	return n, nil
}
