// Command claim-without-lock is the reference relay with one change: its
// claim reads the due rows and then marks them IN_FLIGHT, without
// FOR UPDATE SKIP LOCKED. Two instances that read at once both find a
// row due; the second's update waits for the first's commit and then
// claims the row again. Chapter 003: "Lock rows to prevent concurrent
// relays from double-publishing". verify: UNSAFE at three-instances.
package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"outboxlab/real/verify/relays/relay"
)

func main() {
	relay.Main(func(r *relay.Relay) {
		r.Claim = func(ctx context.Context) ([]relay.Row, error) {
			var out []relay.Row
			err := pgx.BeginFunc(ctx, r.DB, func(tx pgx.Tx) error {
				// MISTAKE: no FOR UPDATE SKIP LOCKED: what another
				// instance is claiming right now is due here too.
				rows, err := tx.Query(ctx, strings.Replace(relay.DueSQL, relay.SkipLocked, "", 1), r.Batch)
				if err != nil {
					return err
				}
				ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
				if err != nil || len(ids) == 0 {
					return err
				}
				rows, err = tx.Query(ctx, `UPDATE outbox SET status = 'IN_FLIGHT', lease_owner = $2,
					lease_until = clock_timestamp() + $3 * interval '1 millisecond'
					WHERE id = ANY($1) RETURNING id, event_id, aggregate_id, payload::text`, ids, r.Env.Instance, r.Env.Lease.Milliseconds())
				if err != nil {
					return err
				}
				out, err = relay.CollectRows(rows)
				return err
			})
			if err != nil {
				return nil, fmt.Errorf("claim: %w", err)
			}
			return out, nil
		}
	})
}
