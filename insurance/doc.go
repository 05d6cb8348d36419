// Package insurance tells the course's second story (chapter 004) with the
// same parts: the claims service releases claim 4711 and, in the same
// transaction, writes message e-5531 into its outbox; the relay carries it
// to the broker, which is unreachable for ten minutes; the payment service
// recognises e-5531 by its id and prepares exactly one payout.
//
// Only the business parts are new: the claims service and the payout
// effect. Outbox, relay, broker and the idempotent consumer are the ones the
// order flow uses.
package insurance
