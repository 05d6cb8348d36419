// Command recover-all is the reference relay with one change: at start
// it releases every IN_FLIGHT row, without asking whose lease it is and
// whether it still runs: chapter 000's recoverInFlightAfterCrash, which
// resets all of them. Another instance's live claim goes back to PENDING,
// this one claims it and sends it while the other is sending it too.
// verify: UNSAFE at relay-restart.
package main

import (
	"context"
	"fmt"

	"outboxlab/real/verify/relays/relay"
)

func main() {
	relay.Main(func(r *relay.Relay) {
		r.Recover = func(ctx context.Context) error {
			// MISTAKE: no lease check: every claim is released, live
			// ones of other instances too.
			_, err := r.DB.Exec(ctx, `UPDATE outbox SET status = 'PENDING', lease_owner = NULL, lease_until = NULL
				WHERE status = 'IN_FLIGHT'`)
			if err != nil {
				return fmt.Errorf("recover: %w", err)
			}
			return nil
		}
	})
}
