// Package real is the root of the lab's real parts: the same system on a
// real database, with real processes killed by a real SIGKILL and frozen by
// a real SIGSTOP, judged by the core's checker, whose verdicts must equal
// the simulator's.
//
// It is a Go module of its own, so that the core module keeps go-cmp and
// rapid as its only dependencies. Its packages:
//
//   - sqlitelab: the order service, one to three relays and billing as
//     separate processes over SQLite files in WAL mode (or the order
//     database on PostgreSQL), a durable broker in a SQLite file of its
//     own, crash points that kill the process with SIGKILL, stalls that
//     freeze it with SIGSTOP, and the differential matrix against the
//     simulator's, with its races' rates.
//   - pglab: chapter 003's PostgreSQL: relays claiming with
//     FOR UPDATE SKIP LOCKED under leases, and the commit-visibility gap of
//     a relay that polls by id, with its transaction-id fix.
//   - kafkalab: Kafka as the broker (franz-go against kfake, its in-process
//     Kafka-protocol cluster): the aggregate id as key, a consumer group that
//     commits after it applied, a restarted relay's second copy absorbed.
//   - verify: a relay the lab did not write, in any language, graded
//     against a one-page contract (verify/CONTRACT.md) under kills at the
//     broker's moments, stops past the lease, outages and publish
//     timeouts; the reference and broken relays under verify/relays. And
//     a consumer, against its own page (verify/CONSUMERS.md), under kills
//     around its effect's commit and its offset commit, records delivered
//     twice, reordered, late or unreadable, a zombie past its session
//     timeout and rebalances; the reference and broken consumers under
//     verify/consumers.
//   - cleanup: what makes a program of this module leave nothing behind
//     (process groups, parent-death signals, an interrupt handler, a
//     janitor process).
//   - internal/realtest: what the module's tests share (the mark of a long
//     test, which CI runs apart).
//   - cmd/labrun-real: the real crash matrix in labrun's table format
//     (go run ./cmd/labrun-real matrix, inside this module), and
//     labrun-real verify.
package real
