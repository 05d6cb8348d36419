// Package pglab is chapter 003's production stack on a real PostgreSQL:
// the outbox with its partial index, relays that claim with
// FOR UPDATE SKIP LOCKED under leases, and the commit-visibility gap of a
// relay that polls by id, with its fix (a transaction-id horizon,
// pg_snapshot_xmin), and the CDC relay that reads the outbox's inserts from
// the WAL through a logical replication slot. StartServer runs a throwaway server from Debian's
// postgresql package; Judge hands what PostgreSQL holds to the core's
// checker, whose verdicts the tests compare with the simulator's.
package pglab
