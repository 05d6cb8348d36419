// Package billing is the lab's receiving service: it bills the orders the
// order service publishes. Its consumer is an inbox.Consumer with
// ApplyEffect as the effect; this package holds what is billing's own.
//
// # Effects
//
// Every event has its own effect, a row in the ledger: an invoice for
// OrderAccepted, an invoice line for OrderAmended, a credit for
// OrderCancelled. Because effects are rows of their own, a skipped or
// doubled event is visible. Each order also has an account, the amount
// billed so far, which must always equal the sum of its ledger rows.
//
// ApplyEffect does no deduplication and no ordering: that is the inbox
// consumer's job, in the same transaction.
package billing
