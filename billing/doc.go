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
// # Idempotent (seed 000 section 7, seed 003)
//
// The message id goes into the inbox with a unique key, in the same
// transaction as the effect. A redelivery finds the id and changes nothing;
// it is acknowledged all the same.
//
// # Ordered per aggregate (seed 001)
//
// Each order's account remembers the last sequence number applied. An event
// with a lower or equal number is stale and skipped; one with a higher
// number than the next is parked until the missing one arrives, then they
// are applied in order. One order waiting for a gap never stops the others.
//
// # Poison
//
// A message that cannot be decoded (unknown type or version, a broken
// payload) is parked as a dead letter, visible and replayable, never retried
// forever and never dropped silently.
package billing
