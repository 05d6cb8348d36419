package sim_test

import (
	"errors"
	"strings"
	"testing"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/orders"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// commitFailures runs v with the matrix's workload and one commit failure
// at every commit boundary the run crosses, at each of its first six
// commits there, with one relay and with two, and returns what was not OK
// and how many failures fired.
func commitFailures(t *testing.T, v variant.Variant) (bad []string, fired int) {
	t.Helper()
	m := scenarios.Matrix()
	for _, b := range sim.CommitBoundaries {
		for k := 1; k <= 6; k++ {
			for relays := 1; relays <= 2; relays++ {
				cfg := m.Config(v)
				cfg.Relays = relays
				if v.MaxRelays > 0 {
					cfg.Relays = min(relays, v.MaxRelays)
				}
				cfg.Faults = append(cfg.Faults, sim.Fault{Kind: sim.FaultCommitFailure, Point: b, Occurrence: k})
				cfg.Trace = true
				res, err := sim.Run(cfg)
				if err != nil {
					t.Fatalf("%s: %v", cfg.Faults[len(cfg.Faults)-1], err)
				}
				for _, e := range res.Trace {
					if strings.Contains(e.Result, sim.ErrCommitFailed.Error()) && e.Kind == sim.EventEffect {
						fired++
						break
					}
				}
				if res.Outcome.String() != "OK" {
					bad = append(bad, cfg.Faults[len(cfg.Faults)-1].String()+": "+res.Violations[0].String())
				}
			}
		}
	}
	return bad, fired
}

// TestCorrectVariantsSurviveAFailedCommit: a commit that fails (a lost
// connection: nothing committed, the process gets an error) at any commit
// boundary of the correct variants leaves every invariant intact. The
// service tells its client the command failed; the relay's claim or mark
// is simply not there and is done again; billing hands the delivery back
// and gets it again.
func TestCorrectVariantsSurviveAFailedCommit(t *testing.T) {
	for _, v := range []variant.Variant{variant.Outbox(), variant.ListenToYourself(), variant.CDC()} {
		bad, fired := commitFailures(t, v)
		if len(bad) > 0 {
			t.Errorf("%s: %d run(s) not OK, first: %s", v.Name, len(bad), bad[0])
		}
		if fired < 10 {
			t.Errorf("%s: %d failure(s) fired, want the commits of the run to fail", v.Name, fired)
		}
	}
}

// keepsFailedDeliveries drops a consumer's Nack: billing that does not hand
// back a delivery whose commit failed, as the reference did before this
// fault existed.
type keepsFailedDeliveries struct{ *broker.Broker }

func (keepsFailedDeliveries) Nack(string, uint64) error { return nil }

// TestAConsumerThatKeepsAFailedDeliveryIsCaught: billing whose commit
// failed and that neither acknowledges nor hands back the delivery holds
// it for ever; its effect never happens: LOST.
func TestAConsumerThatKeepsAFailedDeliveryIsCaught(t *testing.T) {
	v := variant.Outbox()
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		return inbox.NewConsumer(inbox.DefaultConfig(env.Owner, variant.Subscription),
			inbox.Deps{DB: env.BillingDB, Broker: keepsFailedDeliveries{env.Broker}, Gate: env.Gate, Clock: env.Clock, Effect: billing.ApplyEffect})
	}
	bad, _ := commitFailures(t, v)
	if len(bad) == 0 || !strings.Contains(bad[0], "consumer.commit") || !strings.Contains(bad[0], "LOST") {
		t.Fatalf("a consumer that keeps a failed delivery: %v, want LOST at consumer.commit", bad)
	}
}

// swallowsErrors is a service that answers every command with success
// unless its process died: one that logs a failed commit and says OK.
type swallowsErrors struct{ variant.Service }

func (s swallowsErrors) Handle(c orders.Command) error {
	if err := s.Service.Handle(c); errors.Is(err, effect.ErrCrashed) {
		return err
	}
	return nil
}

// TestAServiceThatSaysOKOnAFailedCommitIsCaught: its client was told the
// command succeeded, and the database holds nothing of it: LOST, by the
// count of commands answered with success against the committed versions.
func TestAServiceThatSaysOKOnAFailedCommitIsCaught(t *testing.T) {
	v := variant.Outbox()
	reference := v.NewService
	v.NewService = func(env variant.Env) (variant.Service, error) {
		s, err := reference(env)
		return swallowsErrors{s}, err
	}
	bad, _ := commitFailures(t, v)
	if len(bad) == 0 || !strings.Contains(bad[0], "service.commit") || !strings.Contains(bad[0], "answered") {
		t.Fatalf("a service that says OK on a failed commit: %v, want LOST at service.commit", bad)
	}
}
