package effect_test

import (
	"fmt"

	"outboxlab/effect"
)

// A component declares each durable effect once, with its kind; its two
// crash points are named after it.
func ExampleBoundary() {
	send := effect.Boundary{Process: "relay", Effect: "send", Kind: effect.Send}
	fmt.Println(send, send.Kind)
	fmt.Println(send.Before(), send.After())
	// Output:
	// relay.send send
	// relay.before-send relay.after-send
}
