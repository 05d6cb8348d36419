// Package store is a transactional in-memory database: the durable state of
// one process of the simulated world (the order service's orders and outbox,
// billing's invoices and inbox).
//
// # Transactions
//
// A transaction (Tx) belongs to an owner, the name of the process that began
// it. It buffers its writes; reads inside it see its own writes and the
// committed state, never another transaction's uncommitted writes. Commit
// applies every write of the transaction at once, or none of them: a commit
// that would insert a key that already exists fails with ErrDuplicateKey and
// changes nothing (the unique constraint an inbox relies on).
//
// # Isolation
//
// The store models what a relay relies on in PostgreSQL, no more:
//
//   - Reads see committed data only (read committed): a row another
//     transaction committed after this one began is visible to it.
//   - Two transactions that write the same row cannot both commit: the
//     second to commit fails with ErrConflict and applies nothing (first
//     committer wins). In PostgreSQL the row lock makes the second writer
//     wait and then fail or skip the row (FOR UPDATE SKIP LOCKED); here it
//     fails at commit, which a relay's claim treats as "skip those rows".
//     Without this, two relays that read the same PENDING row could both
//     claim it, and both send it.
//   - Numbers drawn from a sequence (NextVal) are drawn when the row is
//     written, not when it commits, and are never given back: a
//     transaction that drew 7 can commit after one that drew 8. A reader
//     that remembers "the highest id I have seen" skips 7 for good; this
//     commit-visibility gap is as real here as in PostgreSQL.
//
// There are no read locks and no serializable snapshots: a transaction
// that only reads never conflicts, and write skew is possible, as it is
// under PostgreSQL's default isolation.
//
// # Crashes
//
// A crash of a process is Crash(owner): every open transaction of that owner
// is aborted, and everything committed stays. This is the whole promise of a
// database to the outbox pattern, and the lab's simulator relies on it.
//
// # Partial indexes
//
// A table can declare indexes with a Where predicate, the in-memory
// counterpart of a partial index such as
//
//	CREATE INDEX idx_outbox_unsent ON outbox (created_at) WHERE processed_at IS NULL;
//
// ScanIndex visits only the rows that satisfy the predicate, in key order, so
// its cost does not grow with the rows that do not (a million SENT messages).
//
// # Commit log
//
// Every commit is numbered, and once a reader asked for it (KeepLog) it is
// appended to a log of changes (table, key, new value), the in-memory
// counterpart of a database's write-ahead log. A change-data-capture relay
// tails it with a durable offset.
//
// # Values
//
// Values are stored as given and handed back as they were stored. Store plain
// values (structs of strings, numbers and times), never pointers, maps or
// slices that the caller might change afterwards: the store does not copy
// deeply.
//
// The store does no I/O and starts no goroutines. A DB is safe for use by
// several goroutines (a service and a relay's Run loop); one Tx belongs to
// one goroutine. The simulator runs each world on one goroutine anyway.
package store
