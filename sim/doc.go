// Package sim is the lab's simulator: it builds a world (order service,
// relays, broker, billing consumer), runs a workload on one goroutine under a
// virtual clock and one seeded random source, crashes processes at effect
// boundaries, restarts them, quiesces, and checks the invariants.
//
// # A run
//
//  1. run: the workload's commands are handed to the service at their
//     virtual times; relays and the consumer step in an order drawn from
//     the seed. Faults are in force; the planned crashes fire at the k-th
//     time their crash point is reached. A crashed process loses its open
//     transactions and volatile state and restarts after RestartDelay.
//  2. quiesce: transient faults are healed and crashes stop; everything
//     runs until nothing is due. A run that is still busy at the horizon
//     is STUCK, not hung.
//  3. retention: the retention cleanup runs at once, when every message
//     is younger than the retention period, and must delete nothing; then
//     a retention period later, and must leave the dead letters.
//  4. replay: the causes of permanent faults are fixed and dead letters are
//     replayed (a rejected message's cause one at a time, that message
//     alone; after the last fix, everything left); everything runs until
//     nothing is due again. When the replay sent something, the retention
//     cleanup runs once more, and must keep what was sent just now,
//     however old it is.
//  5. check: package check judges what the durable systems hold, and what
//     the simulator saw on the way (latency.go: a claim held after a
//     relay's step, a relay that slept past a due message, LATE).
//
// A relay is woken when its NextWake says, or, with Config.Poll, polled
// as its production loop polls it.
//
// Nothing here reads the wall clock or the global math/rand, a run never
// starts a goroutine, and no output depends on map order: the same Config
// gives the same Result, byte for byte. Matrix and Sweep run independent
// worlds side by side on all cores (Parallel) and gather the results in a
// fixed order, so their output is the same as one run after the other.
package sim
