// Package effect names the effect boundaries of the lab's processes and lets
// whoever owns the world decide what happens when a process crosses one.
//
// Every durable effect a component has (a database commit, a publish to the
// broker, an acknowledgement of a delivery) goes through Gate.Cross with the
// Boundary it is. In production the gate is Direct: it simply performs the
// effect. Under the simulator the gate may crash the process just before the
// effect (it never happens) or just after it (it happened, and nothing after
// it does). The crash points of the lab's matrix are these two sides of each
// boundary:
//
//	Boundary{"relay", "send"}.Before() == "relay.before-send"
//	Boundary{"relay", "send"}.After()  == "relay.after-send"
//
// A component reacts to ErrCrashed by returning at once: its process is dead.
// The gate makes sure a dead process has no further effects even if a
// component carried on.
package effect
