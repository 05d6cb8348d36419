// Command dedup-outside-tx is the reference consumer with one change: its
// inbox is read and written outside the effect's transaction, each
// statement committing on its own, without a lock. Two instances that
// handle one event at once (a zombie past its session timeout and the
// instance that took its partitions) both find it not applied, and both
// apply it. verify: DUPLICATE at stall.
package main

import (
	"context"

	"outboxlab/real/verify/consumers/consumer"
)

func main() {
	consumer.Main(func(c *consumer.Consumer) {
		// MISTAKE: the inbox on the pool, not on the effect's transaction:
		// its check and its mark are steps of their own.
		c.Applied = func(ctx context.Context, _ consumer.Querier, orderID string) (int, error) {
			seq := 0
			err := c.DB.QueryRow(ctx, `SELECT coalesce(max(applied), 0) FROM consumer_inbox WHERE order_id = $1`, orderID).Scan(&seq)
			return seq, err
		}
		mark := c.MarkApplied
		c.MarkApplied = func(ctx context.Context, _ consumer.Querier, orderID string, seq int) error {
			return mark(ctx, c.DB, orderID, seq)
		}
	})
}
