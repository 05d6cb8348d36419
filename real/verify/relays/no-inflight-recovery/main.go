// Command no-inflight-recovery is the reference relay with one change: it
// never takes back an IN_FLIGHT row, neither at start nor when the lease
// of the relay that claimed it ran out. A relay killed holding a claim
// leaves the row IN_FLIGHT for good (chapter 000: "IN_FLIGHT-Nachrichten
// werden nach Crash nie wieder freigegeben"). verify: STUCK at
// kill-before-answer.
package main

import (
	"context"
	"strings"

	"outboxlab/real/verify/relays/relay"
)

func main() {
	relay.Main(func(r *relay.Relay) {
		// MISTAKE: no recovery: a claim outlives the relay that made it.
		r.Recover = func(context.Context) error { return nil }
		claim := strings.Replace(relay.ClaimSQL, relay.ExpiredLease, "", 1)
		r.Claim = func(ctx context.Context) ([]relay.Row, error) { return r.ClaimWith(ctx, claim) }
	})
}
