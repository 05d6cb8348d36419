// Package listen is the listen-to-yourself alternative to the outbox (chapter
// 004, for a service without a transactional database): the service does
// not store the change; it publishes the event first, then consumes its own
// event like any other receiver and only then stores the change. If storing
// fails, the event is delivered again until it succeeds.
//
// There is no outbox and no dual write: the broker is the one place the
// change is written to first, and both the service's own state and billing
// are derived from it by idempotent, ordered consumers.
//
// The service decides on what its listener stored, so it must not decide
// on an order whose last event has not been stored yet (it would publish
// that sequence number again, and the listener would drop one of the two
// after the client was told it succeeded): it answers ErrBusy until the
// listener caught up.
package listen
