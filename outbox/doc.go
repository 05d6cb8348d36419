// Package outbox is the transactional outbox: the table that holds the
// intention to publish, and the relay that carries it to the broker. It is
// the reference implementation of the lab: read it, copy it.
//
// # Write side: one transaction
//
// A use case writes its business change and the event that describes it in
// one transaction (package orders does this):
//
//	tx := db.Begin("service")
//	defer tx.Rollback()
//	tx.Put(orders.Table, order.ID, order)
//	outbox.Append(tx, ids.NewID(), event, now) // PENDING
//	tx.Commit()                                // both, or neither
//
// After the commit the change is accepted, whatever the broker does. The
// broker is not part of the use case (chapter 000 section 3, chapter 003).
//
// # The relay: claim, send, mark
//
// Relay.Step claims a batch of due messages in one short transaction with a
// lease (owner and expiry), sends each to the broker, and marks it SENT
// only after the broker acknowledged it. It is at-least-once by design: a
// relay that dies after the send and before the mark sends the message
// again, and the consumer deduplicates by the message id.
//
//   - Several relays run side by side and never hold one message at once:
//     a message under a live lease is skipped (FOR UPDATE SKIP LOCKED).
//   - A lease that expires is taken over by another relay; the old holder
//     can no longer mark the message (fencing: ErrLeaseLost).
//   - A restarted relay releases the claims it still held (Recover).
//   - A failed send makes the message FAILED, with one more attempt and the
//     error recorded, due again after min(BackoffCap, BackoffBase·2^n); after
//     MaxAttempts it is a DEAD_LETTER: visible, not retried forever, and
//     replayable once the cause is fixed (ReplayDeadLetters).
//   - After a failed step the relay pauses (up to PauseCap) instead of
//     failing a fresh message on every poll of a broker that is down.
//   - Events of one aggregate go out in sequence order: a later event waits
//     while an earlier one is unsent. That head-of-line blocking is the
//     price of order; Metrics shows the blocked aggregates.
//
// # Operations
//
// The unsent messages have a partial index, so a claim costs the same next
// to a million SENT rows (chapter 003). Cleanup deletes SENT messages older
// than the retention window (seven days) and nothing else. Metrics reports
// the count per status, the age of the oldest unsent and of the oldest
// claimable message, the blocked aggregates and the attempts distribution
// (chapter 000 checklist item 9, chapter 001).
//
// The relay reads time from a Clock and does its durable effects through an
// effect.Gate, so the simulator can drive the very same code step by step
// and crash it at every boundary; Run is the loop for real use.
package outbox
