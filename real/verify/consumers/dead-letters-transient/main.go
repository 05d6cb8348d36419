// Command dead-letters-transient is the reference consumer with one
// change: a record whose handling fails for any reason is a dead letter,
// a database connection that was cut as well as a record it cannot read.
// verify: GAVE_UP at db-connection-killed.
package main

import "outboxlab/real/verify/consumers/consumer"

func main() {
	consumer.Main(func(c *consumer.Consumer) {
		// MISTAKE: every failure is taken for a poison record.
		c.GiveUp = func(error) bool { return true }
	})
}
