package sqlitelab

import (
	"strings"
	"time"

	"outboxlab/broker"
	"outboxlab/inbox"
	"outboxlab/outbox"
)

// brokenPorts are ports of the reference to SQL with a bug a port
// plausibly has, each claiming to be the simulator's outbox variant. The
// differential test must tell each apart from the simulator: a real harness
// that agreed with the model whatever it ran would prove nothing.
var brokenPorts = []Variant{
	{Name: "port-acks-before-commit", sim: "outbox", handle: (*service).handle, consumerStep: (*consumer).stepAckFirst},
	{Name: "port-inbox-row-first", sim: "outbox", handle: (*service).handle, consumerStep: (*consumer).stepInboxRowFirst},
	{Name: "port-publish-unawaited", sim: "outbox", handle: (*service).handle, relayStep: (*relay).stepUnawaited},
}

// stepUnawaited publishes each message it claimed as an asynchronous
// producer does, whose delivery report nobody waits for: the send returns
// once the request is on its way, and the relay marks the message SENT
// while the broker still has it to store. Whenever the broker stores what
// it is sent, nothing shows.
func (r *relay) stepUnawaited() (bool, error) {
	batch, err := r.claimDue()
	if err != nil || len(batch) == 0 {
		return false, err
	}
	for _, m := range batch {
		err := r.gate.Cross(outbox.BoundarySend, func() error {
			go func() {
				if err := r.broker.Publish(broker.Envelope{ID: m.ID, Event: m.Event}); err != nil {
					r.log("send %s failed: %v", m.ID, err) // a delivery report nobody reads
				}
			}()
			return nil
		})
		if err != nil {
			return true, err
		}
		if err := r.recordSent(m); err != nil {
			return true, err
		}
	}
	return true, nil
}

// stepAckFirst acknowledges the delivery before it handles it: a crash
// before the commit and the broker never delivers it again.
func (c *consumer) stepAckFirst() (bool, error) {
	d, ok, err := c.broker.Receive(c.session)
	if err != nil || !ok {
		return false, err
	}
	if err := c.broker.Ack(d.Tag); err != nil {
		return true, err
	}
	return true, c.handle(d.Envelope)
}

// stepInboxRowFirst records the message in the inbox as it arrives, in a
// transaction of its own, then applies it: a crash before the effect's
// commit and the redelivery is skipped as seen.
func (c *consumer) stepInboxRowFirst() (bool, error) {
	d, ok, err := c.broker.Receive(c.session)
	if err != nil || !ok {
		return false, err
	}
	var seen int
	if err := c.db.QueryRow(`SELECT COUNT(*) FROM processed WHERE message_id = ?`, d.Envelope.ID).Scan(&seen); err != nil {
		return true, err
	}
	if seen == 0 {
		if _, err := c.db.Exec(`INSERT INTO processed (message_id, at) VALUES (?, ?)`, d.Envelope.ID, time.Now().UnixNano()); err != nil {
			return true, err
		}
		c.mistake = "non-idempotent-consumer" // checked and written above: apply without either
		err := c.handle(d.Envelope)
		c.mistake = ""
		if err != nil {
			return true, err
		}
	}
	return true, c.gate.Cross(inbox.BoundaryAck, func() error { return c.broker.Ack(d.Tag) })
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
