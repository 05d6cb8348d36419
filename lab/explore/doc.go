// Package explore hunts for the crash points and fault combinations nobody
// thought of: it draws random schedules (a workload over a few orders,
// broker faults, crashes at any effect boundary, one to three relays, an
// interleaving seed, the operator's work, in some schedules amounts of
// any size, cleanups at any age, failed commits in bursts and the broker
// down from the start), runs them, and shrinks the first one that
// breaks an invariant to a short counterexample.
//
// Generate draws a schedule from a Source. The property tests draw through
// rapid, so that rapid shrinks their failures; Explore draws from a seeded
// random source and shrinks with Shrink. Both use the same generator, so a
// schedule means the same in both.
package explore
