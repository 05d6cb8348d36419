package outboxlab_test

import (
	"fmt"

	"outboxlab/broker"
	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/variant"
)

// myRelay is a learner's own relay: claim a batch with the reference
// ClaimDue, send each message, mark it SENT. It skips recovery after a
// restart (its claims are taken over when their lease runs out, so that
// costs only time), and on a broker error it records nothing: no attempt is
// counted, and the message is claimed again when its lease runs out.
type myRelay struct {
	*variant.RelayAdapter
	env variant.Env
}

func (r myRelay) Recover() error { return nil }

func (r myRelay) Step() (bool, error) {
	batch, err := r.ClaimDue()
	if err != nil || len(batch) == 0 {
		return false, err
	}
	for _, m := range batch {
		err := r.env.Gate.Cross(outbox.BoundarySend, func() error {
			return r.env.Broker.Publish(broker.Envelope{ID: m.ID, Event: m.Event})
		})
		if err != nil {
			return true, err // nothing recorded: the lease runs out, and it is sent again
		}
		tx := r.env.OrderDB.Begin(r.env.Owner)
		cur, _ := outbox.Get(tx, m.Key)
		if err := cur.MarkSent(r.env.Owner, r.env.Clock.Now()); err == nil {
			tx.Put(outbox.Table, cur.Key, cur)
			if err := r.env.Gate.Cross(outbox.BoundaryMark, tx.Commit); err != nil {
				return true, err
			}
		}
		tx.Rollback()
	}
	return true, nil
}

// A learner plugs in their own relay through the same interfaces as every
// variant, and the matrix grades it against what they declare. Here the
// learner declares OK everywhere. Their Recover does nothing: killed
// after a claim, the relay restarts and leaves its own claim to run out
// its 30 s lease (LATE at the relay's crash points and at relay-restart:
// chapter 000 section 5's recoverInFlightAfterCrash gives it back at
// once). Where the broker fails: without counted attempts a message is
// tried more often during a ten-minute outage than the retry policy allows
// (STORM), and one the broker always rejects never becomes a dead letter
// and is retried forever (STUCK), the mistake of no-retry-limit by another
// road. And a step that returns the broker's error, or the refusal of a
// stale mark, hands its caller what the relay should have handled itself:
// Relay.Run stops at a step's error, so no declaration allows it, even
// where the messages all arrive. Where one relay's clock runs a minute
// ahead, that relay judges its leases by its own clock (r.env.Clock): it
// sends, finds its lease expired, marks nothing, and leaves the message
// claimed for half a minute (LATE).
func Example_gradeYourOwnRelay() {
	mine := variant.Variant{
		Name:       "my-relay",
		Summary:    lang.Text{EN: "a learner's relay", DE: "das Relay eines Teilnehmers"},
		Expect:     map[string]variant.Outcome{}, // "it is correct"
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			ref, err := variant.ReferenceRelay(env, nil)
			if err != nil {
				return nil, err
			}
			return myRelay{RelayAdapter: variant.AdaptRelay(ref), env: env}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
	m := scenarios.Matrix()
	for _, p := range m.Points {
		cell, err := m.RunCell(mine, p)
		if err != nil {
			panic(err)
		}
		verdict := "as declared"
		switch {
		case len(cell.Unhandled) > 0:
			verdict = "returned: " + cell.Unhandled[0]
		case !cell.Matches():
			verdict = "declared " + cell.Expected.String()
		}
		fmt.Printf("%-23s %-5s %s\n", p.ID, cell.Outcome, verdict)
	}
	// Output:
	// service.before-commit   OK    as declared
	// service.after-commit    OK    as declared
	// service.after-publish   n/a   as declared
	// relay.after-claim       LATE  declared OK
	// relay.after-send        LATE  declared OK
	// relay.before-mark       LATE  declared OK
	// relay.after-mark        OK    as declared
	// consumer.before-commit  OK    as declared
	// consumer.after-commit   OK    as declared
	// broker-outage           STORM returned: relay-1: broker: publish e-6aaa407bc219b7cd: broker unavailable
	// outage-backlog          STORM returned: relay-1: broker: publish e-6aaa407bc219b7cd: broker unavailable
	// publish-timeout-stored  OK    returned: relay-1: broker: publish e-6aaa407bc219b7cd: broker publish timed out
	// publish-timeout-dropped OK    returned: relay-1: broker: publish e-6aaa407bc219b7cd: broker publish timed out
	// duplicate-delivery      OK    as declared
	// reorder                 OK    as declared
	// poison                  OK    as declared
	// corrupt-once            OK    as declared
	// unknown-contract        OK    as declared
	// wrong-currency          OK    as declared
	// rejected                STUCK returned: relay-1: broker: publish e-6aaa407bc219b7cd: broker rejected message
	// stall                   OK    as declared
	// stall-outage            OK    returned: relay-1: broker: publish e-ab69bcf7bf2dc5cb: broker unavailable
	// stall-release           OK    returned: relay-1: broker: publish e-6aaa407bc219b7cd: broker unavailable
	// mark-conflict           OK    returned: relay-1: store orders: commit: outbox/000000000002: write conflict: another transaction committed this row first
	// failure-conflict        OK    returned: relay-1: broker: publish e-ab69bcf7bf2dc5cb: broker unavailable
	// relay-restart           LATE  declared OK
	// recover-conflict        n/a   as declared
	// relay-lost              OK    as declared
	// slow-commit             OK    as declared
	// clock-skew              LATE  declared OK
	// outage-restart          STORM returned: relay-1: broker: publish e-6aaa407bc219b7cd: broker unavailable
}
