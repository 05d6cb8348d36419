// Command unordered-claim is the reference relay with one change: its
// claim takes every due row, not only the oldest unsent one of each
// aggregate. Two instances send one order's events side by side, and a
// later event overtakes an earlier one whose send failed (chapter 001:
// "Werden Ereignisse durch parallele Relay-Worker vertauscht …").
// verify: OUT_OF_ORDER.
package main

import (
	"context"
	"strings"

	"outboxlab/real/verify/relays/relay"
)

func main() {
	relay.Main(func(r *relay.Relay) {
		// MISTAKE: the claim without its wait for the aggregate's earlier
		// rows: no per-aggregate order.
		claim := strings.Replace(relay.ClaimSQL, relay.OldestOfAggregate, "", 1)
		r.Claim = func(ctx context.Context) ([]relay.Row, error) { return r.ClaimWith(ctx, claim) }
	})
}
