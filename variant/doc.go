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
package variant
