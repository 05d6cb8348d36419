package listen_test

import (
	"strings"
	"testing"

	"outboxlab/domain"
	"outboxlab/orders"
	"outboxlab/sim"
	"outboxlab/variant"
)

// TestCompetingListenersDiverge shows why listen-to-yourself supports one
// listener (Variant.MaxRelays = 1). Two amendments decided at once both
// read version 1 and both publish #2. One listener applies the first the
// broker logged and skips the other as stale, as billing does, so both
// agree. Two listeners competing on one subscription may store the other
// one: the order says +2.00, billing billed +1.00.
func TestCompetingListenersDiverge(t *testing.T) {
	eur := func(s string) domain.Money { return domain.MustMoney(s, "EUR") }
	workload := []sim.Command{
		{Command: orders.Command{Kind: orders.Place, OrderID: "o-1", Amount: eur("10.00")}},
		{Command: orders.Command{Kind: orders.Amend, OrderID: "o-1", Amount: eur("1.00")}},
		{Command: orders.Command{Kind: orders.Amend, OrderID: "o-1", Amount: eur("2.00")}},
	}
	v := variant.ListenToYourself()
	two := sim.DefaultConfig(v, workload, 24)
	two.Relays = 2
	if _, err := sim.Run(two); err == nil || !strings.Contains(err.Error(), "supports at most 1") {
		t.Fatalf("two listeners: err = %v, want the variant's limit named", err)
	}

	v.MaxRelays = 0 // what the limit prevents
	two.Variant = v
	res, err := sim.Run(two)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome.String() != "MISMATCH" {
		t.Fatalf("two competing listeners: %s %v, want MISMATCH", res.Outcome, res.Violations)
	}
	one := sim.DefaultConfig(variant.ListenToYourself(), workload, 24)
	for seed := range uint64(50) {
		one.Seed = seed
		res, err := sim.Run(one)
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome.String() != "OK" {
			t.Fatalf("one listener, seed %d: %s %v", seed, res.Outcome, res.Violations)
		}
	}
}
