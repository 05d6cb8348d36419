// Package consumer is a billing consumer written from the contract page
// alone (verify/CONSUMERS.md): it knows the records on the topic, the
// tables billing writes its effects to, the environment it is started
// with, PostgreSQL (pgx) and Kafka (franz-go), and nothing of the lab that
// grades it. It is chapter 003's idempotent receiver with chapter 001's
// per-aggregate order:
//
//   - read: each record's headers and JSON value become an Event; a record
//     it cannot read (not JSON, a field missing, an unknown type or
//     version, an amount not in its currency's format) is a dead letter,
//     once, and the consumer goes on;
//   - apply: one transaction per record locks the aggregate's row of its
//     inbox (the sequence applied last), and then skips the event (applied
//     before: a copy), parks it (an earlier one is missing: a gap), or
//     writes its effect (a ledger row and the account) with every parked
//     event it now lets through, and the new sequence, and commits;
//   - commit: the offsets of what it applied, to the group, after the
//     transactions committed; a commit refused because the partitions
//     moved on is harmless: whoever holds them now reads the records again,
//     and the inbox skips them;
//   - retry: a database error is transient: the record is tried again,
//     after a pause, never given up.
//
// The steps are fields of Consumer, so that a broken consumer is this one
// with one step replaced (see the sibling directories, each a program with
// one MISTAKE), and the reference program is New(env).Run.
package consumer
