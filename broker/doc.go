// Package broker is the lab's message broker: a durable topic log with
// at-least-once delivery to named subscribers, and faults that the simulator
// switches on and off deterministically.
//
// The broker is a separate durable system. It survives every process crash:
// what it acknowledged is in its log, and a subscriber's unacknowledged
// deliveries are delivered again when that subscriber reconnects.
//
// # Faults
//
// Faults describe what the broker does wrong; they never read the wall clock
// or a random source of their own:
//
//   - FailNextPublishes(n): the next n publishes fail and store nothing.
//   - Outage(from, to): unreachable in [from, to): publishes fail, nothing is
//     delivered (chapter 004's ten minutes).
//   - TimeoutStored(target), TimeoutDropped(target): the publisher gets
//     ErrTimeout, once. In the first branch the broker stored the message
//     (the answer was lost), in the second it did not (the request was
//     lost). The error is the same: a publisher cannot tell them apart and
//     must send again under the same id.
//   - Duplicate(target): the message is delivered twice.
//   - Reorder(target): the target and the next message of its aggregate are
//     delivered in swapped order.
//   - Delay(target, d): the message is delivered only d after it was stored.
//   - Reject(target): every publish of the message is refused, until
//     FixRejections.
//   - Poison(target): every delivery of the message carries a corrupted
//     payload the consumer cannot process, until FixPoison.
//   - CorruptOnce(target): the next delivery of the message carries a
//     corrupted payload, the one after it the original.
//   - NewerVersion(target), UnknownType(target): every delivery carries a
//     contract no consumer knows yet, until FixPoison.
//   - WrongCurrency(target): every delivery of an amendment carries its
//     amount in another currency, which the consumer reads and cannot
//     apply, until FixPoison.
//
// A Target names a message by aggregate id and sequence number, which the
// simulator knows before any message id is drawn.
//
// Everything the broker does is recorded (History) for traces and for the
// invariant checker.
package broker
