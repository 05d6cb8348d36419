// Package pglab is chapter 003's production stack on a real PostgreSQL:
// the outbox with its partial index, relays that claim with
// FOR UPDATE SKIP LOCKED under leases, and the commit-visibility gap of a
// relay that polls by id, with its fix (a transaction-id horizon,
// pg_snapshot_xmin). StartServer runs a throwaway server from Debian's
// postgresql package; Judge hands what PostgreSQL holds to the core's
// checker, whose verdicts the tests compare with the simulator's.
//
// Its tests also run sqlitelab's process harness with the order database on
// that server: the crash matrix with relays claiming FOR UPDATE SKIP
// LOCKED, claim-without-lock, and the cdc variant's relay reading the
// outbox's inserts from the WAL through a logical replication slot;
// CreateSlot and RetainedWAL measure what an idle slot holds back.
package pglab
