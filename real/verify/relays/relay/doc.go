// Package relay is an outbox relay written from the contract page alone
// (verify/CONTRACT.md): it knows the outbox table, the environment it is
// started with, PostgreSQL (pgx) and Kafka (franz-go), and nothing of the
// lab that grades it. It is chapter 000's publisher on chapter 003's
// stack:
//
//   - claim: the oldest unsent row of each aggregate that is due,
//     FOR UPDATE SKIP LOCKED, marked IN_FLIGHT under a lease of
//     OUTBOX_LEASE_MS in the claim's own short transaction;
//   - send: each claimed row to Kafka, keyed by its aggregate, the event
//     id in a header, and wait for the broker's acknowledgement;
//   - mark: SENT only while the lease is still its own (the fence); a
//     failed send is recorded as FAILED with a backoff, the rest of the
//     batch is handed back, and the relay pauses as a whole;
//   - recover: at start, its own former claims and every claim whose
//     lease ran out go back to PENDING.
//
// The steps are fields of Relay, so that a broken relay is this one with
// one step replaced (see the sibling directories, each a program with one
// MISTAKE), and the reference program is New(env).Run.
package relay
