// Package cdc is the change-data-capture alternative to a polling relay
// (chapter 003 "Polling versus Change Data Capture", chapter 004 on Debezium's
// outbox event router): instead of querying the outbox table, the relay
// tails the database's commit log from a durable offset and publishes every
// outbox row it sees inserted.
//
// The service writes the order and the outbox row in one transaction, as
// with the polling relay, and deletes the row again in the same transaction:
// the table stays empty, and the commit log carries the message.
//
// The offset is committed only after the broker acknowledged everything
// before it, so a crash in between sends messages again (at least once); a
// message the broker keeps refusing is moved to a dead-letter table after
// MaxAttempts, so that it does not block the log forever.
package cdc
