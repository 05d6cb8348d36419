// Package sqlitelab runs the lab's system on real parts: the order service
// (one instance or two), one to three relays and billing as separate
// operating-system processes over SQLite files in WAL mode
// (github.com/ncruces/go-sqlite3, pure Go), with a durable broker in a
// SQLite file of its own. A process that reaches the run's crash point
// (relay.after-send, the second time) kills itself with SIGKILL, and the
// parent restarts it as a new process; a process that reaches a stall the
// run plans (Config.Stalls) stops itself with SIGSTOP, and the parent
// resumes it with SIGCONT (or kills it) when the stall's time is up. Then
// the parent lets the system quiesce, reads the databases and the broker,
// and the core's check gives the verdict.
//
// The code is the reference's, in SQL: the order and its outbox row in one
// transaction; the relay's claim (BEGIN IMMEDIATE: SQLite has one writer),
// send and mark; billing's inbox row, applied sequence and effect in one
// transaction, its ack after the commit. The lifecycle's rules are the
// core's own (outbox.Message's Claim, MarkSent, Release; domain's orders and
// events). The mistakes the real parts express are the reference with the
// mistake's one change, marked MISTAKE as in the core.
//
// Matrix runs every crash point the simulator reaches with these variants
// and the fault rows real processes can stage (stall, stall-outage,
// relay-restart, publish-timeout-dropped, slow-commit: see Row), and
// compares each cell with the simulator's verdict, or with the verdict a
// variant declares it gives on real parts and why; a cell whose verdict
// is a race's runs several times, each with its own seed (Config.Seed),
// and states its rate. The differential tests fail on any difference. By
// default a cell runs the runs that decide it; MatrixConfig.Full runs
// every one, and MatrixConfig.Shard splits the cells for machines that
// share the work.
//
// With Config.Postgres the order database (orders, outbox, commit log) is
// a PostgreSQL database instead, and the same relays claim with FOR UPDATE
// SKIP LOCKED (chapter 003's stack; pglab starts the server and runs the
// matrix that way). Billing, the broker and the control file stay SQLite.
package sqlitelab
