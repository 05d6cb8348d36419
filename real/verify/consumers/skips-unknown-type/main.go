// Command skips-unknown-type is the reference consumer with one change:
// a record of an event type billing does not know is skipped, committed
// past without a trace, as if billing decided which events concern it.
// The contract names every type; one it does not know is a contract
// billing has not rolled out yet, and its record is a dead letter.
// verify: LOST at unknown-version (the OrderRefunded record vanished).
package main

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"outboxlab/real/verify/consumers/consumer"
)

func main() {
	consumer.Main(func(c *consumer.Consumer) {
		deadLetter := c.DeadLetter
		c.DeadLetter = func(ctx context.Context, rec *kgo.Record, cause error) error {
			for _, h := range rec.Headers {
				switch {
				case h.Key != consumer.HeaderType:
				case string(h.Value) != "OrderAccepted" && string(h.Value) != "OrderAmended" && string(h.Value) != "OrderCancelled":
					// MISTAKE: not billing's business, skipped without a trace.
					fmt.Printf("p%d/%d: %s is none of billing's business: skipped\n", rec.Partition, rec.Offset, h.Value)
					return nil
				}
			}
			return deadLetter(ctx, rec, cause)
		}
	})
}
