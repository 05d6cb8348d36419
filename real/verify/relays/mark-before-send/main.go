// Command mark-before-send is the reference relay with one change: it
// marks a row SENT before the broker confirmed it. A relay that dies
// between the mark and the send, or whose send fails, has lost the event
// for good (chapter 000: "vor SENT-Markierung"; the lab's mistake of the
// same name). verify: LOST at kill-on-arrival and broker-outage.
package main

import (
	"context"
	"fmt"

	"outboxlab/real/verify/relays/relay"
)

func main() {
	relay.Main(func(r *relay.Relay) {
		r.Deliver = func(ctx context.Context, rows []relay.Row) error {
			for _, row := range rows {
				// MISTAKE: the mark comes first; once it is committed,
				// nothing will ever send this row again.
				if _, err := r.Mark(ctx, row); err != nil {
					return err
				}
				if err := r.Send(ctx, row); err != nil {
					return fmt.Errorf("send %s: %w", row.EventID, err)
				}
			}
			return nil
		}
	})
}
