// Package outboxlab is a deterministic crash-simulation and teaching lab for
// the transactional outbox pattern.
//
// The packages, from the bottom up:
//
//	domain     orders, money, versioned events (the business)
//	store      transactional in-memory database with a commit log
//	effect     effect boundaries: where the simulator may crash a process
//	broker     durable broker with at-least-once delivery and faults
//	outbox     the outbox table and the relay (the reference to copy)
//	orders     the order service: order + outbox row in one transaction
//	billing    the idempotent, per-aggregate ordered consumer
//	check      the invariant checker (LOST, PHANTOM, DUPLICATE, ...)
//	variant    what a variant provides; the reference variant
//	mistakes   the deliberate mistakes, kept apart; do not copy
//	sim        the simulator: virtual time, seeded choices, crashes
//	scenarios  the standard workload, matrix rows, named stories
//	cmd/labrun the command line front end
//
// crashmatrix_test.go in this directory asserts every cell of the crash
// matrix against the variants' declarations.
package outboxlab
