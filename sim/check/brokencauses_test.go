package check_test

import (
	"strings"
	"testing"
	"time"

	"outboxlab/lab/labtest"
	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// TestTheLabNamesWhatALeaseDid: two relays an examiner wrote from the
// public API, whose outcome the lab got right and whose cause it named
// wrong. One declares no lease and claims under a hidden two-hour one:
// at relay-lost, polled, relay-1 dies holding its claims and relay-2
// polls for them until the lab's bound of steps runs out, which read "a
// variant that spins". The other claims under a lease of 50 ms, shorter
// than its sends: at blocked-backlog the 101 messages of o-1 go out in
// batches whose claims run out before their later messages are sent,
// which are claimed and sent again, 32 times: that read "retries without
// backoff or limit" although no send failed. Each message now names the claim, in both languages.
func TestTheLabNamesWhatALeaseDid(t *testing.T) {
	hidden2h := labtest.Declaring(labtest.WithRelayConfig("lease-hidden-2h", func(c *outbox.Config) { c.Lease = 2 * time.Hour }),
		func(c *outbox.Config) { c.Lease = 0 })
	short := func(c *outbox.Config) { c.Lease = 50 * time.Millisecond }
	cases := []struct {
		v       variant.Variant
		m       sim.Matrix
		point   string
		outcome variant.Outcome
		want    lang.Text
		not     string
	}{
		{
			v: hidden2h, m: scenarios.Matrix().Polled(), point: "relay-lost", outcome: variant.Stuck,
			want: lang.Text{
				EN: "message e-ab69bcf7bf2dc5cb (o-2#1) is held by relay-1's claim, committed at 00:00:01.009, until 02:00:01.009, a lease of 2h0m0s where the lab allows at most 1m0s (its policy declares no lease), and relay-1 is down: no other relay may take it before then, and the steps ran out waiting for it",
				DE: "die Nachricht e-ab69bcf7bf2dc5cb (o-2#1) wird vom Claim von relay-1 gehalten, committet um 00:00:01.009, bis 02:00:01.009, eine Lease von 2 h, wo das Labor höchstens 1 min erlaubt (seine Strategie nennt keine Lease), und relay-1 ist ausgefallen: vorher darf kein anderes Relay sie nehmen, und die Schritte gingen im Warten darauf aus",
			},
			not: "spins",
		},
		{
			v: labtest.Declaring(labtest.WithRelayConfig("lease-50ms", short), short), m: withAssumptions(), point: "blocked-backlog", outcome: variant.Storm,
			want: lang.Text{
				EN: "was published 32 times, the retry policy allows 30: 30 of them were sent after the claim they were sent under had run out (claims that ran out within 50ms of their commit): a lease shorter than the relay's sends runs out before it records them, and the message is claimed and sent again, by this relay or another",
				DE: "wurde 32-mal veröffentlicht, die Wiederholungsstrategie erlaubt 30: 30 davon wurden gesendet, nachdem der Claim, unter dem sie gesendet wurden, abgelaufen war (Claims, die höchstens 50 ms nach ihrem Commit abliefen): eine Lease, kürzer als die Sendungen des Relays, läuft ab, bevor es sie vermerkt, und die Nachricht wird erneut geclaimt und gesendet, von diesem Relay oder einem anderen",
			},
			not: "without backoff",
		},
	}
	for _, c := range cases {
		i := 0
		for i < len(c.m.Points) && c.m.Points[i].ID != c.point {
			i++
		}
		cell, err := c.m.RunCell(c.v, c.m.Points[i])
		if err != nil {
			t.Fatal(err)
		}
		if cell.Outcome != c.outcome || len(cell.Violations) == 0 {
			t.Fatalf("%s at %s: %s, want %s", c.v.Name, c.point, cell.Outcome, c.outcome)
		}
		got := cell.Violations[0].Text()
		for l, want := range map[lang.Lang]string{lang.English: c.want.EN, lang.German: c.want.DE} {
			if !strings.Contains(got.In(l), want) || strings.Contains(got.EN, c.not) {
				t.Errorf("%s at %s (%s): %s\nwant it to say %q, and not %q", c.v.Name, c.point, l, got.In(l), want, c.not)
			}
		}
	}
}

// withAssumptions is the matrix with the assumption rows as its rows.
func withAssumptions() sim.Matrix {
	m := scenarios.Matrix()
	m.Points = scenarios.Assumptions()
	return m
}
