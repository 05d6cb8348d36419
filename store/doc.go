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
