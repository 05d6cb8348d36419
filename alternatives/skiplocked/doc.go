// Package skiplocked is chapter 003's relay as the chapter writes it
// (processOutboxBatch and startRelay): one transaction per batch selects
// the unprocessed outbox rows oldest first FOR UPDATE SKIP LOCKED,
// publishes every one of them, marks them processed and commits; the loop
// sleeps 50 ms after a batch and 500 ms after an empty poll. Another
// relay skips the rows the transaction holds, so two relays never publish
// one row at once: the row lock is the claim, held from before the publish
// until the commit, and a crash frees it with the transaction.
//
// What the chapter's code leaves out, this relay leaves out too, so that
// the lab can show it: the schema's attempts and last_error columns are
// never written, a failed publish rolls the batch back and the next poll
// tries it again (the loop catches the error; the chapter's would end the
// process), with no backoff, no limit and no dead letter. A frozen relay
// holds its rows as long as it is frozen (a lease would run out); a relay
// that waits on a slow broker holds a database transaction and its row
// locks as long as it waits.
//
// Compare it with the reference's lease design (package outbox): labrun
// scenario stall --variant skip-locked-tx, labrun scenario broker-outage
// --variant skip-locked-tx, labrun matrix --variant skip-locked-tx.
package skiplocked
