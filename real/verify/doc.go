// Package verify grades an outbox relay it did not write, in any
// language, against a contract of one page (CONTRACT.md): the outbox
// table, the environment an instance is started with, what it must do
// and what it may choose. `labrun-real verify --relay 'CMD …'` is its door.
//
// A round is a world of its own: a fresh database on a throwaway
// PostgreSQL (pglab.StartServer), a Kafka-protocol broker (kfake) on a
// local TCP port, the lab's order service writing the standard workload
// and commands drawn from the seed, and one to three instances of the
// relay, each a process group started by /bin/sh -c (Fleet). The broker's
// listener is wrapped (Tap): every produce request and its answer pass
// the harness, which tells the sending process by the socket it holds,
// and acts at the moments that matter (Moment): as the request arrives,
// when the broker has stored it and its answer is about to leave, and
// just after the answer left. The faults (FaultKind) kill the sender
// there, stop it past its lease or within it, have the broker refuse
// produces, withhold a request or an answer, or terminate the sender's
// database connections.
//
// After the round the judge (Judge) hands the facts to the lab's checker
// (lab/check): the changes the service committed, what the broker stored
// and from which process, the rows the relay left, every change of a
// row's status (written by a trigger in the relay's own transaction), and
// what the harness did to whom. Added to the checker's verdicts are what
// only the broker's side shows: a record no committed row explains, an
// aggregate's events out of order or across partitions, a row stored from
// two processes that both held it (UNSAFE).
//
// The judge reads who wrote what, not what a relay says of itself: the
// broker's side of the wire says which process sent a request, and every
// write of a row's status and lease is recorded by a trigger with its
// backend, which the harness maps to the relay process holding that
// connection (dbWatch). So it finds a live claim taken away by another
// instance, and shows in the timeline the write that broke a row. What no
// outcome names is a verdict of its own (Breach): a process that ended
// by itself (the round ends there), one that ignored SIGTERM. A failing
// round's replay stages what of its timing the harness can tell (Late).
//
// The relays under relays/ know only the contract: the reference
// (relays/reference), broken ones, each the reference with one step
// replaced and marked MISTAKE, and one in Python (relays/python).
package verify
