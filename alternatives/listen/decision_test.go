package listen_test

import (
	"strings"
	"testing"

	"outboxlab/alternatives/listen"
	"outboxlab/domain"
	"outboxlab/orders"
	"outboxlab/sim"
	"outboxlab/variant"
)

// TestADecisionWaitsForItsListener: three commands on one order at once.
// The first is published; an amendment that finds its event still on its
// way to the service's own listener is answered ErrBusy. Decided on the
// stale order instead, both amendments would publish #2; the listener
// would store one and drop the other as already applied, after its client
// was told it succeeded (LOST: see TestAStaleDecisionIsCaught). With the
// rule, two listeners competing on one subscription (beyond the variant's
// limit of one) have no two events of one order to race on either.
func TestADecisionWaitsForItsListener(t *testing.T) {
	workload := placeAndAmendTwiceAtOnce()
	v := listen.Variant()
	two := sim.DefaultConfig(v, workload, 24)
	two.Relays = 2
	if _, err := sim.Run(two); err == nil || !strings.Contains(err.Error(), "supports at most 1") {
		t.Fatalf("two listeners: err = %v, want the variant's limit named", err)
	}
	v.MaxRelays = 0 // beyond the limit
	two.Variant = v
	one := sim.DefaultConfig(listen.Variant(), workload, 24)
	for _, cfg := range []sim.Config{one, two} {
		busyRuns := 0
		for seed := range uint64(50) {
			cfg.Seed, cfg.Trace = seed, true
			res, err := sim.Run(cfg)
			if err != nil {
				t.Fatal(err)
			}
			busy := 0
			for _, e := range res.Trace {
				if strings.Contains(e.Result.EN, listen.ErrBusy.Error()) {
					busy++
				}
			}
			if res.Outcome.String() != "OK" {
				t.Fatalf("%d listener(s), seed %d: %s %v", cfg.Relays, seed, res.Outcome, res.Violations)
			}
			if busy > 0 {
				busyRuns++
			}
		}
		// Whether the listener stored the place before the amendments came
		// depends on the interleaving: in most, it did not.
		if busyRuns < 25 {
			t.Errorf("%d listener(s): %d of 50 seeds answered a command busy, want most", cfg.Relays, busyRuns)
		}
	}
}

// neverBehind is a lag that never sees the service's own events on their
// way: a listen-to-yourself service without the rule.
type neverBehind struct{}

func (neverBehind) Holds(string, string) (bool, error) { return false, nil }

// TestAStaleDecisionIsCaught runs the commands of
// TestADecisionWaitsForItsListener with a service that decides whatever
// its listener has stored. Both amendments read version 1 and publish #2;
// the listener stores one and drops the other, and so does billing: the
// order and billing agree, and only the client that was told its amendment
// succeeded knows better. The checker counts the commands answered with
// success against the committed versions: LOST.
func TestAStaleDecisionIsCaught(t *testing.T) {
	workload := placeAndAmendTwiceAtOnce()
	v := listen.Variant()
	v.NewService = func(env variant.Env) (variant.Service, error) {
		return &listen.Service{DB: env.OrderDB, Broker: env.Broker, Self: neverBehind{}, Gate: env.Gate, Clock: env.Clock, IDs: env.IDs, Owner: env.Owner}, nil
	}
	cfg := sim.DefaultConfig(v, workload, 0)
	lost := 0
	for seed := range uint64(50) {
		cfg.Seed = seed
		res, err := sim.Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome.String() == "LOST" && strings.Contains(res.Violations[0].Detail.EN, "answered 3 command(s) with success, but 2 change(s) are committed") {
			lost++
		}
	}
	// Where the listener stored each event before the next command came
	// (an interleaving a seed draws), no decision was stale.
	if lost < 10 {
		t.Fatalf("a stale decision was LOST in %d of 50 seeds, want at least 10", lost)
	}
}

// placeAndAmendTwiceAtOnce is o-1 placed and amended twice, all at once.
func placeAndAmendTwiceAtOnce() []sim.Command {
	eur := func(s string) domain.Money { return domain.MustMoney(s, "EUR") }
	return []sim.Command{
		{Command: orders.Command{Kind: orders.Place, OrderID: "o-1", Amount: eur("10.00")}},
		{Command: orders.Command{Kind: orders.Amend, OrderID: "o-1", Amount: eur("1.00")}},
		{Command: orders.Command{Kind: orders.Amend, OrderID: "o-1", Amount: eur("2.00")}},
	}
}
