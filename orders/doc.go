// Package orders is the order service: it accepts, amends and cancels orders
// and, in the same transaction, writes the event that describes each change
// into the outbox. This is the write side of the transactional outbox
// pattern (chapter 000, section 3): the use case ends at the commit, and the
// broker is not part of it.
package orders
