// Command ignores-sigterm is the reference consumer with one change: it
// ignores SIGTERM, so an orchestrator that stops it (a deploy, a scale
// in) waits out its grace period and kills it, in the middle of whatever
// record it holds. verify: IGNORED_SIGTERM at every round (rule 8).
package main

import (
	"os/signal"
	"syscall"

	"outboxlab/real/verify/consumers/consumer"
)

func main() {
	consumer.Main(func(*consumer.Consumer) {
		// MISTAKE: SIGTERM ignored; only SIGKILL ends the consumer.
		signal.Ignore(syscall.SIGTERM)
	})
}
