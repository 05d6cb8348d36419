// Command ignores-sigterm is the reference relay with one change: it
// ignores SIGTERM, so an orchestrator that stops it (a deploy, a scale
// down) waits out its grace period and kills it, in the middle of
// whatever step it is in. verify: IGNORED_SIGTERM at every round (rule 8).
package main

import (
	"os/signal"
	"syscall"

	"outboxlab/real/verify/relays/relay"
)

func main() {
	relay.Main(func(*relay.Relay) {
		// MISTAKE: SIGTERM ignored; only SIGKILL ends the relay.
		signal.Ignore(syscall.SIGTERM)
	})
}
