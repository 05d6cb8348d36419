// Command commits-polled-on-stop is the reference consumer with one
// change: it commits the offsets of what its client polled, not of the
// records it handled. While it runs, the two are the same (it handles
// every record of a poll before it commits); on SIGTERM it ends after
// the record in progress, and its last commit passes the rest of the poll,
// records it never applied, which nobody reads again. verify: LOST at
// rebalance (the instance that leaves is sent SIGTERM in a burst of
// records).
package main

import (
	"context"

	"github.com/twmb/franz-go/pkg/kgo"

	"outboxlab/real/verify/consumers/consumer"
)

func main() {
	consumer.Main(func(c *consumer.Consumer) {
		c.Commit = func(ctx context.Context, _ []*kgo.Record) error {
			// MISTAKE: what was polled, handled or not.
			return c.Kafka.CommitUncommittedOffsets(ctx)
		}
	})
}
