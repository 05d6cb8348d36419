// Package inbox is the receiving side's half of the outbox pattern: a
// consumer that applies each message's effect exactly once and in order
// per aggregate, whatever the broker does. The effect is the user's
// (Deps.Effect): billing's ledger, the insurance story's payouts, the
// listen-to-yourself listener's orders.
//
// # Idempotent (chapter 000 section 7, chapter 003)
//
// The message id goes into the inbox (TableProcessed) with a unique key, in
// the same transaction as the effect. A redelivery finds the id and changes
// nothing; it is acknowledged all the same.
//
// # Ordered per aggregate (chapter 001)
//
// The consumer remembers, per aggregate, the last sequence number applied,
// in the same transaction as the effect. An event with a lower or equal
// number is stale and skipped; one with a higher number than the next is
// parked until the missing one arrives, then they are applied in order.
// One aggregate waiting for a gap never stops the others (Blocked shows
// who waits).
//
// # Poison
//
// A contract the consumer does not know (unknown type or version) is
// parked as a dead letter at once: never misread. A message that fails
// otherwise (a broken payload, an effect that errs) is handed back to the
// broker and tried again after what is already waiting; after MaxAttempts
// failures it is parked as a dead letter too. Dead letters are visible,
// never retried forever and never dropped; ReplayDeadLetters asks the
// broker for the originals once the cause is fixed.
package inbox
