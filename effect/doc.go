// Package effect names the effect boundaries of the lab's processes and lets
// whoever owns the world decide what happens when a process crosses one.
//
// Every durable effect a component has (a database commit, a publish to the
// broker, an acknowledgement of a delivery) goes through Gate.Cross with the
// Boundary it is, declared once by the component with its Kind (a commit,
// a send, an ack, a call). In production the gate is Direct: it simply
// performs the effect. Under the simulator the gate may crash the process
// just before the effect (it never happens) or just after it (it happened,
// and nothing after it does). The crash points of the lab's matrix are
// these two sides of each boundary:
//
//	send := Boundary{Process: "relay", Effect: "send", Kind: Send}
//	send.Before() == "relay.before-send"
//	send.After()  == "relay.after-send"
//
// A component reacts to ErrCrashed by returning at once: its process is dead.
// The gate makes sure a dead process has no further effects even if a
// component carried on.
package effect
