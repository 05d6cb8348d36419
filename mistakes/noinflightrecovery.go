package mistakes

import (
	"time"

	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/variant"
)

// NoInflightRecovery is a relay whose claims never end: it recovers nothing
// after a restart, and its claims have no lease that could expire (as in
// the course's Java lab, where IN_FLIGHT lasts until someone calls
// recoverInFlightAfterCrash, and nobody does).
//
// WRONG: a relay that dies between claiming and marking leaves the message
// IN_FLIGHT forever. No relay will ever send it, and no alarm rings.
//
// Chapter 000, section 11 ("IN_FLIGHT-Nachrichten werden nach Crash nie wieder
// freigegeben"); chapter 000 section 5.
func NoInflightRecovery() variant.Variant {
	forever := func(c *outbox.Config) {
		c.Lease = 100 * 365 * 24 * time.Hour // "no lease": a claim is forever
	}
	return variant.Variant{
		Name:    "no-inflight-recovery",
		Summary: lang.Text{EN: "never releases IN_FLIGHT claims after a crash", DE: "gibt IN_FLIGHT-Claims nach einem Absturz nie wieder frei"},
		Chapter: "000 section 11 \"IN_FLIGHT-Nachrichten werden nach Crash nie wieder freigegeben\"",
		Expect: map[string]variant.Outcome{
			"relay.after-claim": variant.Stuck,
			"relay.after-send":  variant.Stuck, // also claimed, and never marked
			"relay.before-mark": variant.Stuck,
			"relay-restart":     variant.Stuck, // killed holding a claim
			"relay-lost":        variant.Stuck, // its claim outlives it: no lease runs out
			// Where a relay is killed, its declared endless lease is
			// LATE itself (variant.MaxLease), claims or not.
			"outage-restart": variant.Late,
			"stall-release":  variant.Late,
		},
		// It says so: its claims are judged by the lease it declares.
		Policy:     variant.Policy{Relay: variant.RelayPolicyOf(configured(forever))},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			r, err := newRelay(env, forever)
			if err != nil {
				return nil, err
			}
			return noRecoveryRelay{r}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

type noRecoveryRelay struct{ *relay }

// Recover does nothing. DO NOT COPY.
func (noRecoveryRelay) Recover() error {
	// MISTAKE: nothing is released: the claims this relay held when it
	// died stay IN_FLIGHT, and with an endless lease nobody takes them.
	return nil
}
