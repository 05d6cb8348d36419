// Package variant defines what a way of building the lab's three parts
// (order service, relay, billing consumer) must provide, so that the
// simulator can crash it anywhere and the matrix can grade it.
//
// The reference variant, Outbox, is the transactional outbox pattern done
// right. The deliberate mistakes live in package mistakes; a learner's own
// variant is a Variant value built the same way (example_test.go at the
// root of the module grades a learner's relay).
//
// A Variant declares the outcome theory predicts at each crash point and
// fault (Expect). The crash matrix fails when reality and declaration
// differ, in either direction: a mistake that stops failing is as much a
// defect as the reference failing.
//
// The package is the contract between what is judged and the lab that
// judges it, and sits below both: the outcome words a variant declares and
// the checker returns (Outcome: OK, LOST, ...), the policies it declares
// (RelayPolicy, ConsumerPolicy, and the bounds the lab sets every policy),
// and the ports the lab reads facts through (DeadLetterKeeper's
// DeadLetter). It imports the reference components it adapts and nothing
// of the lab: the simulator (sim, sim/check) imports it, never the other
// way.
package variant
