// Command zombie-memory is the reference consumer with one change: it
// trusts that it alone holds its partitions, and keeps the sequence it
// applied last of each order in memory, where it reads it (from the
// database, without a lock, only the first time), forgetting it when the
// client says its partitions were revoked or lost. A consumer stopped past
// its session timeout does not know it lost them: it comes back after
// another instance applied what it held, applies it again and commits.
// verify: DUPLICATE at stall.
package main

import (
	"context"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"

	"outboxlab/real/verify/consumers/consumer"
)

func main() {
	consumer.Main(func(c *consumer.Consumer) {
		// MISTAKE: the inbox read from memory, which only partitions
		// revoked or lost, as the client tells of them, make it forget.
		var mu sync.Mutex
		memory := map[string]int{}
		forget := func(context.Context, *kgo.Client, map[string][]int32) {
			mu.Lock()
			defer mu.Unlock()
			clear(memory)
		}
		c.Client = append(c.Client, kgo.OnPartitionsRevoked(forget), kgo.OnPartitionsLost(forget))
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
