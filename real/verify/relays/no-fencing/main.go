// Command no-fencing is the reference relay with one change: it records
// an outcome by the row's id alone, without checking that it still holds
// the row. A relay stopped past its lease comes back after another
// instance took the row over and sent it, and writes the SENT row again
// (or, if its own late send failed, sets it back to FAILED, and the row
// is sent once more). verify: UNSAFE at stall and stall-outage.
package main

import (
	"context"
	"fmt"

	"outboxlab/real/verify/relays/relay"
)

func main() {
	relay.Main(func(r *relay.Relay) {
		// MISTAKE: no fence (status = 'IN_FLIGHT' AND lease_owner = me
		// AND lease_until > now) on either record of an outcome.
		r.Mark = func(ctx context.Context, row relay.Row) (bool, error) {
			_, err := r.DB.Exec(ctx, `UPDATE outbox SET status = 'SENT', processed_at = clock_timestamp(),
				lease_owner = NULL, lease_until = NULL WHERE id = $1`, row.ID)
			if err != nil {
				return false, fmt.Errorf("mark %s: %w", row.EventID, err)
			}
			return true, nil
		}
		r.Fail = func(ctx context.Context, row relay.Row, cause error) error {
			_, err := r.DB.Exec(ctx, `UPDATE outbox SET status = 'FAILED', attempts = attempts + 1, last_error = $2,
				next_attempt_at = clock_timestamp() + least(100 * power(2, attempts), 2000) * interval '1 millisecond',
				lease_owner = NULL, lease_until = NULL WHERE id = $1`, row.ID, cause.Error())
			if err != nil {
				return fmt.Errorf("record failure of %s: %w", row.EventID, err)
			}
			return nil
		}
	})
}
