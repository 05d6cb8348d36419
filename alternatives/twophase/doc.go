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
// The database's commit is the decision. A service that dies between the
// two phases leaves the message prepared, in doubt: the coordinator (the
// process in the relay's place) commits it when the database holds the
// change, and aborts it when the change was never committed, once it is
// older than a command takes.
package twophase
