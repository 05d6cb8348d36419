// Command no-version-check is the reference consumer with one change: it
// reads an event by its type alone, whatever its contract version, and
// applies what it takes a later version to mean. verify: PHANTOM at
// unknown-version (an invoice of an order the service never committed).
package main

import "outboxlab/real/verify/consumers/consumer"

func main() {
	consumer.Main(func(c *consumer.Consumer) {
		// MISTAKE: the version is not looked at.
		c.Known = func(typ, _ string) bool {
			return typ == "OrderAccepted" || typ == "OrderAmended" || typ == "OrderCancelled"
		}
	})
}
