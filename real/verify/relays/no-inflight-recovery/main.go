// Command no-inflight-recovery is the reference relay with one change: it
// never takes back an IN_FLIGHT row, neither at start nor when the lease
// of the relay that claimed it ran out. A relay killed holding a claim
// leaves the row IN_FLIGHT for good (chapter 000: "IN_FLIGHT-Nachrichten
// werden nach Crash nie wieder freigegeben"). verify: STUCK at
// kill-before-answer.
package main

import (
	"context"

	"outboxlab/real/verify/relays/relay"
)

// claim is the reference's claim without its second branch, the
// IN_FLIGHT rows whose lease ran out.
const claim = `
WITH due AS (
	SELECT id FROM outbox o
	WHERE status IN ('PENDING', 'FAILED') AND (next_attempt_at IS NULL OR next_attempt_at <= clock_timestamp())
	  AND NOT EXISTS (SELECT 1 FROM outbox e
	                  WHERE e.aggregate_id = o.aggregate_id AND e.id < o.id AND e.status <> 'SENT')
	ORDER BY id LIMIT $1
	FOR UPDATE SKIP LOCKED)
UPDATE outbox o SET status = 'IN_FLIGHT', lease_owner = $2,
	lease_until = clock_timestamp() + $3 * interval '1 millisecond'
FROM due WHERE o.id = due.id
RETURNING o.id, o.event_id, o.aggregate_id, o.payload::text`

func main() {
	relay.Main(func(r *relay.Relay) {
		// MISTAKE: no recovery: a claim outlives the relay that made it.
		r.Recover = func(context.Context) error { return nil }
		r.Claim = func(ctx context.Context) ([]relay.Row, error) { return r.ClaimWith(ctx, claim) }
	})
}
