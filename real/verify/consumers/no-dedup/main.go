// Command no-dedup is the reference consumer with one change: it keeps
// each order's sequence to wait out gaps, but applies an event it applied
// before again (a record delivered twice, published twice, or read again
// after a kill). verify: DUPLICATE at published-twice, and where a record
// is read again (kill-after-effect, delivered-twice).
package main

import "outboxlab/real/verify/consumers/consumer"

func main() {
	consumer.Main(func(c *consumer.Consumer) {
		// MISTAKE: a copy is applied like the first.
		c.Decide = func(seq, applied int) consumer.Decision {
			if seq <= applied+1 {
				return consumer.Apply
			}
			return consumer.Park
		}
	})
}
