// Command dead-letters-key is the reference consumer with one change: its
// dead letter's event_id is the record's key (the order id), as if the
// key were the record's id, not its event-id header. The row names a
// place on the topic and another record's id: nobody can tell which
// record was given up. verify: MISMATCH (and LOST: the record is not
// dead-lettered) at poison.
package main

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"outboxlab/real/verify/consumers/consumer"
)

func main() {
	consumer.Main(func(c *consumer.Consumer) {
		c.DeadLetter = func(ctx context.Context, rec *kgo.Record, cause error) error {
			// MISTAKE: the key for the event id.
			_, err := c.DB.Exec(ctx, `INSERT INTO billing_dead_letters (event_id, partition, "offset", reason)
				SELECT NULLIF($1, ''), $2, $3, $4
				WHERE NOT EXISTS (SELECT 1 FROM billing_dead_letters WHERE partition = $2 AND "offset" = $3)`,
				string(rec.Key), rec.Partition, rec.Offset, cause.Error())
			if err != nil {
				return fmt.Errorf("dead letter p%d/%d: %w", rec.Partition, rec.Offset, err)
			}
			fmt.Printf("dead letter p%d/%d (%s): %v\n", rec.Partition, rec.Offset, rec.Key, cause)
			return nil
		}
	})
}
