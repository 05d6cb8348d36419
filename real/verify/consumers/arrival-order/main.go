// Command arrival-order is the reference consumer with one change: it
// applies events in the order they arrive, skipping only the one it
// applied last (a record delivered again at once). An order's amendment
// that arrives before its acceptance is applied first. verify:
// OUT_OF_ORDER at reorder and gap.
package main

import "outboxlab/real/verify/consumers/consumer"

func main() {
	consumer.Main(func(c *consumer.Consumer) {
		// MISTAKE: no sequence check: what arrives is applied.
		c.Decide = func(seq, applied int) consumer.Decision {
			if seq == applied {
				return consumer.Skip
			}
			return consumer.Apply
		}
	})
}
