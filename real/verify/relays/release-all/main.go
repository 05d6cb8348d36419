// Command release-all is the reference relay with one change: when a
// mark finds its lease lost (it was stopped past its lease, and another
// instance took the row over), it hands back every IN_FLIGHT row to start
// afresh, the other instances' live claims too. Those instances are
// sending their rows at that moment; another instance claims the rows
// and sends them again. verify: UNSAFE at stall, whose resume meets
// another instance's live claim.
package main

import (
	"context"
	"fmt"

	"outboxlab/real/verify/relays/relay"
)

func main() {
	relay.Main(func(r *relay.Relay) {
		mark := r.Mark
		r.Mark = func(ctx context.Context, row relay.Row) (bool, error) {
			held, err := mark(ctx, row)
			if err != nil || held {
				return held, err
			}
			// MISTAKE: every IN_FLIGHT row goes back, whoever holds it and
			// however long its lease still runs.
			tag, err := r.DB.Exec(ctx, `UPDATE outbox SET status = 'PENDING', lease_owner = NULL, lease_until = NULL
				WHERE status = 'IN_FLIGHT'`)
			if err != nil {
				return false, fmt.Errorf("release: %w", err)
			}
			fmt.Printf("lost the lease of %s: released %d claim(s) to start afresh\n", row.EventID, tag.RowsAffected())
			return false, nil
		}
	})
}
