// Command max-version is the reference consumer with one change: it keeps
// only the highest sequence of each order and applies what is above it,
// instead of each event in turn: an event that arrives after a later one
// of its order is taken for a copy and skipped (chapter 001's "only apply
// if newer", which suits a state, not a ledger of events). verify: LOST at
// reorder and gap.
package main

import "outboxlab/real/verify/consumers/consumer"

func main() {
	consumer.Main(func(c *consumer.Consumer) {
		// MISTAKE: the highest sequence wins; a gap is not waited out.
		c.Decide = func(seq, applied int) consumer.Decision {
			if seq <= applied {
				return consumer.Skip
			}
			return consumer.Apply
		}
	})
}
