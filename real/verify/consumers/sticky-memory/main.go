// Command sticky-memory is the reference consumer with one change: it
// keeps the sequence it applied last of each order in memory, where it
// reads it (from the database, without a lock, only the first time), and
// never forgets it, as if its partitions were its own for good. When a
// partition comes back to it after another instance applied events of its
// orders, its memory is behind: it takes the next event for one after a
// gap and waits for the ones it remembers as missing, or applies again
// what the other applied. verify: STUCK or LOST at rebalance.
package main

import (
	"context"
	"sync"

	"outboxlab/real/verify/consumers/consumer"
)

func main() {
	consumer.Main(func(c *consumer.Consumer) {
		// MISTAKE: the inbox read from memory, which nothing makes forget.
		var mu sync.Mutex
		memory := map[string]int{}
		c.Applied = func(ctx context.Context, q consumer.Querier, orderID string) (int, error) {
			mu.Lock()
			seq, ok := memory[orderID]
			mu.Unlock()
			if ok {
				return seq, nil
			}
			err := q.QueryRow(ctx, `SELECT coalesce(max(applied), 0) FROM consumer_inbox WHERE order_id = $1`, orderID).Scan(&seq)
			return seq, err
		}
		mark := c.MarkApplied
		c.MarkApplied = func(ctx context.Context, q consumer.Querier, orderID string, seq int) error {
			mu.Lock()
			memory[orderID] = seq
			mu.Unlock()
			return mark(ctx, q, orderID, seq)
		}
	})
}
