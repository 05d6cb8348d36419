// Command auto-commit is the reference consumer with one change: the
// Kafka client commits the offsets of every record a poll returned, every
// 5 s, whether or not its effect has committed. That is librdkafka's
// enable.auto.commit with its default enable.auto.offset.store=true (the
// Python, .NET and confluent Go clients). A consumer killed with an effect
// written and not committed comes back past it. verify: LOST at
// kill-before-effect.
package main

import (
	"github.com/twmb/franz-go/pkg/kgo"

	"outboxlab/real/verify/consumers/consumer"
)

func main() {
	consumer.Main(func(c *consumer.Consumer) {
		// MISTAKE: auto-commit of the offsets polled, not of the effects
		// committed.
		c.Offsets = []kgo.Opt{kgo.GreedyAutoCommit()}
	})
}
