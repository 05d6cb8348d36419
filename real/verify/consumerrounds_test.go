package verify

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"outboxlab/lang"
	"outboxlab/orders"
)

// TestEveryConsumerFaultHasItsRoundAndBothLanguages: a consumer fault
// kind added to the registry is played by a round of its own, aims at an
// occurrence of its moment, and says what it does in English and German.
func TestEveryConsumerFaultHasItsRoundAndBothLanguages(t *testing.T) {
	rounds := ConsumerRounds(1, 0)
	for _, k := range ConsumerFaultKinds() {
		i := slices.IndexFunc(rounds, func(r Round) bool { return r.Name == string(k) })
		if i < 0 || len(rounds[i].Faults) != 1 || rounds[i].Faults[0].Kind != k || !rounds[i].Consumer {
			t.Errorf("no consumer round plays %s alone", k)
			continue
		}
		if rounds[i].Faults[0].At < 1 || rounds[i].Instances < 2 {
			t.Errorf("%s: %v with %d instances", k, rounds[i].Faults, rounds[i].Instances)
		}
		if DescribeConsumerFault(k, lang.English) == DescribeConsumerFault(k, lang.German) {
			t.Errorf("%s has no German text", k)
		}
	}
	if _, err := Select(rounds, []string{"kill-on-arrival"}); err == nil || !strings.Contains(err.Error(), "valid: three-instances, kill-after-effect") {
		t.Errorf("a relay round among the consumer rounds: %v, want the consumer rounds named", err)
	}
}

// TestTheSeedDrawsTheSameConsumerRounds: a replay is the same schedule of
// faults on the same workload; another seed draws another; a random round
// has faults of different kinds at occurrences of their moments that
// come.
func TestTheSeedDrawsTheSameConsumerRounds(t *testing.T) {
	describe := func(seed uint64) string {
		var b strings.Builder
		for _, r := range ConsumerRounds(seed, 3) {
			fmt.Fprintf(&b, "%s %d %v %v\n", r.Name, r.Instances, r.Faults, ConsumerWorkload(r.Seed, r.Commands))
		}
		return b.String()
	}
	if describe(7) != describe(7) {
		t.Fatal("seed 7 drew two different schedules")
	}
	if describe(7) == describe(8) {
		t.Fatal("seeds 7 and 8 drew the same schedules")
	}
	for seed := uint64(1); seed <= 50; seed++ {
		r := RandomConsumerRound(seed, 1)
		kinds := map[FaultKind]bool{}
		for _, f := range r.Faults {
			d := consumerDefOf(f.Kind)
			if kinds[f.Kind] || f.At < 1 || f.At > 7 || d.moment == atPublish && f.At < 3 || r.Instances < d.instances || !r.Consumer {
				t.Fatalf("seed %d: %v with %d instances", seed, r.Faults, r.Instances)
			}
			kinds[f.Kind] = true
		}
	}
}

// TestTheConsumerWorkloadHasYen: the consumer rounds' commands place
// orders in euros, dollars and yen, and the yen have no cents.
func TestTheConsumerWorkloadHasYen(t *testing.T) {
	currencies := map[string]int{}
	for _, c := range ConsumerWorkload(3, 200) {
		if c.Kind == orders.Place {
			currencies[string(c.Amount.Currency)]++
		}
		if c.Amount.Currency == "JPY" && strings.Contains(c.Amount.Amount(), ".") {
			t.Fatalf("%v: yen with a point", c)
		}
	}
	if len(currencies) != 3 || currencies["JPY"] == 0 {
		t.Errorf("currencies %v", currencies)
	}
	for i, c := range Workload(3, 50) {
		if c.Amount.Currency == "JPY" && i >= len(ConsumerWorkload(3, 0)) {
			t.Fatalf("the relay rounds' workload has yen beyond the standard workload's: %v", c)
		}
	}
}

// TestARoundWhoseFaultWasNotMadeIsNoPass: a rebalance after which no
// partition went back is NOT MADE, printed with why, and fails the round
// (exit 1), though nothing was found against the consumer.
func TestARoundWhoseFaultWasNotMadeIsNoPass(t *testing.T) {
	rounds, _ := Select(ConsumerRounds(1, 0), []string{"rebalance"})
	res := Result{Round: rounds[0], NotMade: []NotMade{{Fault: rounds[0].Faults[0], Why: "in 3 tries, no partition went back"}}}
	if res.OK() || res.Verdict() != "NOT MADE" {
		t.Fatalf("OK %v, verdict %q: want no pass, NOT MADE", res.OK(), res.Verdict())
	}
	var b strings.Builder
	WriteRound(&b, res, lang.English, "labrun-real verify --consumer ... --round rebalance", false)
	if !strings.Contains(b.String(), "NOT MADE: rebalance@2: in 3 tries, no partition went back; the harness could not make its fault") {
		t.Errorf("the report:\n%s", b.String())
	}
}
