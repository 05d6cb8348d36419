// Package billing is the receiving side: a consumer of order events that
// bills each business change exactly once and in order, whatever the broker
// does.
//
// # Effects
//
// Every event has its own effect, a row in the ledger: an invoice for
// OrderAccepted, an invoice line for OrderAmended, a credit for
// OrderCancelled. Because effects are rows of their own, a skipped or doubled
// event is visible.
//
// # Idempotent (chapter 000 section 7, chapter 003)
//
// The message id goes into the inbox with a unique key, in the same
// transaction as the effect. A redelivery finds the id and changes nothing;
// it is acknowledged all the same.
//
// # Ordered per aggregate (chapter 001)
//
// The consumer remembers, per order, the last sequence number applied, in
// the same transaction as the effect. An event with a lower or equal number
// is stale and skipped; one with a higher number than the next is parked
// until the missing one arrives, then they are applied in order. One order
// waiting for a gap never stops the others (Blocked shows who waits).
//
// # Poison
//
// A contract the consumer does not know (unknown type or version) is parked
// as a dead letter at once: never misread. A message that fails otherwise (a
// broken payload, an effect that errs) is handed back to the broker and
// tried again after what is already waiting; after MaxAttempts failures it
// is parked as a dead letter too. Dead letters are visible, never retried
// forever and never dropped; ReplayDeadLetters asks the broker for the
// originals once the cause is fixed.
//
// # Reuse
//
// The effect is a function (Deps.Effect); the inbox, the ordering and the
// dead letters are the same for any effect. Package insurance's payment
// service and listen-to-yourself's own listener use this consumer with
// effects of their own.
package billing
