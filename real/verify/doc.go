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
// (sim/check): the changes the service committed, what the broker stored
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
// connection (writerWatch). So it finds a live claim taken away by another
// instance, and shows in the timeline the write that broke a row. What no
// outcome names is a verdict of its own (Breach): a process that ended
// by itself (the round ends there), one that ignored SIGTERM. A failing
// round's replay stages what of its timing the harness can tell (Late).
//
// A CDC relay never writes a row: with BySlot (--sent-by slot) the
// harness creates the round's replication slot before the first row,
// learns where each row's transaction committed from a slot of its own,
// and a row is sent once the relay's slot has confirmed past that commit.
//
// The relays under relays/ know only the contract: the reference
// (relays/reference), seven broken ones, each the reference with one
// step replaced and marked MISTAKE, one in Python (relays/python), a
// broken CDC relay (relays/slot-without-send), and two the lab did not
// write: Debezium's embedded engine with its outbox event router
// (relays/debezium, a Maven project) and Watermill's forwarder
// (relays/watermill, a Go module of its own), graded in ECOSYSTEM.md.
//
// `labrun-real verify --consumer 'CMD …'` grades the other half, a
// billing consumer, against its own page (CONSUMERS.md), with the same
// machinery: the server, a broker on TCP, the fleet of process groups,
// the timeline, the replay command. The lab's order service commits the
// workload (in euros, dollars and yen) to an orders database and the
// lab's relay (publisher) publishes each event with the contract's
// headers; one to three consumer instances in one group write their
// effects to a billing database of their own (BillingSchema). The harness
// aims each consumer round's fault (ConsumerRounds) at a moment it sees:
// an offset commit as it arrives at the broker (OffsetTap), a ledger row
// written in a transaction not yet committed (held at an advisory lock
// by a trigger, dbWatch), or an event as the relay publishes it; and it
// watches the group at the broker (groupView). The judge (JudgeConsumer)
// hands the ledger in commit order and the accounts to sim/check, and
// reads the group's committed offsets: a record the group read past that
// is neither applied nor a dead letter is LOST, one it never got to is
// STUCK; a dead letter names its record by partition, offset and
// event-id. The consumers under consumers/ know only that page: the
// reference, seventeen broken ones, one whose assignor leaves the
// rebalance round unmade, one in Python.
package verify
