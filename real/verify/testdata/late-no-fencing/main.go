// Command late-no-fencing is a test's fixture, not a relay of the
// contract's: relays/no-fencing (the reference without its fence) on a
// machine that once does not run it for its lease and half a second
// more, between a claim and its send, as a loaded machine may. The
// harness did nothing to it, and another instance takes the row over:
// the round fails (UNSAFE: written after SENT), and on a calm machine
// relays/no-fencing passes the same round. The failing round's replay
// must stage that lateness (TestAReplayStagesTheRoundsOwnTiming).
package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"outboxlab/real/verify/relays/relay"
)

func main() {
	relay.Main(func(r *relay.Relay) {
		var once sync.Once
		send := r.Send
		r.Send = func(ctx context.Context, row relay.Row) error {
			if r.Env.Instance == "relay-1" {
				once.Do(func() { time.Sleep(r.Env.Lease + 500*time.Millisecond) }) // the machine, not the relay
			}
			return send(ctx, row)
		}
		// relays/no-fencing's mark: SENT by the row's id alone.
		r.Mark = func(ctx context.Context, row relay.Row) (bool, error) {
			_, err := r.DB.Exec(ctx, `UPDATE outbox SET status = 'SENT', processed_at = clock_timestamp(),
				lease_owner = NULL, lease_until = NULL WHERE id = $1`, row.ID)
			if err != nil {
				return false, fmt.Errorf("mark %s: %w", row.EventID, err)
			}
			return true, nil
		}
	})
}
