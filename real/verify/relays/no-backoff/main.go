// Command no-backoff is the reference relay with one change: a failed
// send is tried again at once. The relay does not pause, hands the row
// straight back, and tells its client not to retry with a backoff of its
// own either: while the broker is down it sends request after request.
// Chapter 000: "Retry läuft ohne Backoff und verstärkt Störungen".
// verify: STORM at broker-outage.
package main

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"outboxlab/real/verify/relays/relay"
)

func main() {
	relay.Main(func(r *relay.Relay) {
		// MISTAKE: no backoff anywhere: not in the relay, not per row,
		// not in the client.
		r.Pause = func(int) time.Duration { return 0 }
		r.Fail = func(ctx context.Context, row relay.Row, _ error) error { return r.HandBack(ctx, []relay.Row{row}) }
		r.Producer = append(r.Producer, kgo.RecordRetries(0))
	})
}
