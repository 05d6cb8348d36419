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
//  3. operate: the operator's work, in the order of Config.Operations
//     (DefaultOperations; see operator.go): retention cleanups at several
//     ages, which may delete only SENT messages older than the relay's
//     declared retention; a replay before the causes are fixed, after
//     which every dead letter must be one again; the fix of every cause
//     and the replay of the dead letters (a rejected message's cause one
//     at a time, that message alone; after the last fix, everything left;
//     the broker down a while, so that the replay meets its error); the
//     replays run a second time, which must change nothing.
//  4. check: package check judges what the durable systems hold, and what
//     the simulator saw on the way (latency.go: a claim held after a
//     relay's step, a relay that slept past a due message, LATE), by the
//     budgets of the policy the variant declares (budget.go), with dead
//     letters and held messages counted from the facts the world owns and
//     the variant's ports cross-checked against them (deadletters.go),
//     and leases judged by the process that committed each claim.
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
