// Package twophase is chapter 004's first alternative that is not an
// outbox: the service stores the order and hands the event to the broker
// in one distributed transaction, a two-phase commit. The broker prepares
// the message (stores it, hands it to nobody), the database commits, the
// broker commits the message. The event is on the broker at the moment of
// the commit, without an outbox and without a relay's delay; the price is
// the coupling the chapter names: "Ist die Nachrichtenplattform gestört,
// kann der Schadendienst nichts speichern." While the broker is down, every
// command fails.
//
// The database's commit is the decision: the service writes it (a row of
// table Decisions, keyed by the message's id) in the transaction of the
// order. A service that dies, or stalls, between the two phases leaves the
// message prepared, in doubt: the coordinator (the process in the relay's
// place), once the message is older than a command takes, commits it when
// the decision says commit, and where the transaction decided nothing,
// commits a decision to abort first and then aborts it. Whichever decision
// commits first stands (the second insert of the key fails), so a service
// that was only slow cannot store its order after the coordinator aborted
// its event: its commit fails. A coordinator that guessed from the order it
// read would abort the event of an order committed just after its read.
package twophase
