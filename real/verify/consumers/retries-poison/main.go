// Command retries-poison is the reference consumer with one change: it
// never gives a record up, and tries one it cannot read again and again;
// its partition waits behind it forever. verify: STUCK at poison and
// unknown-version.
package main

import "outboxlab/real/verify/consumers/consumer"

func main() {
	consumer.Main(func(c *consumer.Consumer) {
		// MISTAKE: every failure is taken for a transient one.
		c.GiveUp = func(error) bool { return false }
	})
}
