// Command unordered-claim is the reference relay with one change: its
// claim takes every due row, not only the oldest unsent one of each
// aggregate. Two instances send one order's events side by side, and a
// later event overtakes an earlier one whose send failed (chapter 001:
// "Werden Ereignisse durch parallele Relay-Worker vertauscht …").
// verify: OUT_OF_ORDER.
package main

import (
	"context"

	"outboxlab/real/verify/relays/relay"
)

// claim is the reference's claim without its NOT EXISTS: the check that
// no earlier event of the aggregate is still unsent.
const claim = `
WITH due AS (
	SELECT id FROM outbox o
	WHERE ((status IN ('PENDING', 'FAILED') AND (next_attempt_at IS NULL OR next_attempt_at <= clock_timestamp()))
	       OR (status = 'IN_FLIGHT' AND lease_until < clock_timestamp()))
	ORDER BY id LIMIT $1
	FOR UPDATE SKIP LOCKED)
UPDATE outbox o SET status = 'IN_FLIGHT', lease_owner = $2,
	lease_until = clock_timestamp() + $3 * interval '1 millisecond'
FROM due WHERE o.id = due.id
RETURNING o.id, o.event_id, o.aggregate_id, o.payload::text`

func main() {
	relay.Main(func(r *relay.Relay) {
		// MISTAKE: no per-aggregate order in the claim.
		r.Claim = func(ctx context.Context) ([]relay.Row, error) { return r.ClaimWith(ctx, claim) }
	})
}
