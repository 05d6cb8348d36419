package sqlitelab

import (
	"strings"
	"testing"
	"time"

	"outboxlab/inbox"
	"outboxlab/lab/check"
)

// brokenPorts are ports of the reference to SQL with a bug a port
// plausibly has, each claiming to be the simulator's outbox variant. The
// differential test must tell each apart from the simulator: a real harness
// that agreed with the model whatever it ran would prove nothing.
var brokenPorts = []Variant{
	{Name: "port-acks-before-commit", sim: "outbox", handle: (*service).handle, consumerStep: (*consumer).stepAckFirst},
	{Name: "port-inbox-row-first", sim: "outbox", handle: (*service).handle, consumerStep: (*consumer).stepInboxRowFirst},
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

func TestTheDifferentialTestCatchesABrokenPort(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a matrix cell; without -short it runs")
	}
	exe, args := program(t)
	for _, tc := range []struct {
		variant, point string
		real           check.Outcome
	}{
		{"port-acks-before-commit", "consumer.before-commit", check.Lost},
		{"port-inbox-row-first", "consumer.before-commit", check.Lost},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			cells, err := Matrix(MatrixConfig{Variants: []string{tc.variant}, Points: []string{tc.point}, Program: exe, Args: args})
			if err != nil {
				t.Fatal(err)
			}
			c := cells[0]
			if c.Agrees() || c.Outcome != tc.real || c.Sim != check.OK {
				t.Fatalf("%s at %s: real %s, simulator %s; want real %s against the simulator's OK", tc.variant, tc.point, c.Outcome, c.Sim, tc.real)
			}
			if got := Explain(c); !containsAll(got, "real parts LOST, simulator OK", "rerun the cell on real parts (in real/): go run ./cmd/labrun-real matrix --variant", "on real parts", "in the simulator", "crash consumer.before-commit") {
				t.Errorf("the explanation lacks a timeline:\n%s", got)
			}
		})
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
