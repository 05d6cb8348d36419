// Command dies-on-fetch-error is the reference consumer with one change:
// a fetch the broker refuses ends it, as if the error were fatal. While a
// broker fails over, it ends and is started again, again and again.
// verify: STUCK at fetch-refused.
package main

import "outboxlab/real/verify/consumers/consumer"

func main() {
	consumer.Main(func(c *consumer.Consumer) {
		// MISTAKE: a refused fetch is taken for the end.
		c.FetchFailed = func(_ string, _ int32, err error) error { return err }
	})
}
