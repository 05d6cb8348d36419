package sim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/lang"
	"outboxlab/mistakes"
	"outboxlab/orders"
	"outboxlab/sim"
	"outboxlab/sim/check"
	"outboxlab/variant"

	"github.com/google/go-cmp/cmp"
)

func place(at time.Duration, id, amount string) sim.Command {
	return sim.Command{At: at, Command: orders.Command{Kind: orders.Place, OrderID: id, Amount: domain.MustMoney(amount, "EUR")}}
}

func onePlace() []sim.Command { return []sim.Command{place(0, "o-1", "10.00")} }

func threeOrders() []sim.Command {
	return []sim.Command{
		place(0, "o-1", "10.00"),
		place(time.Second, "o-2", "20.00"),
		{At: 2 * time.Second, Command: orders.Command{Kind: orders.Amend, OrderID: "o-1", Amount: domain.MustMoney("1.00", "EUR")}},
		place(3*time.Second, "o-3", "30.00"),
	}
}

// actions returns the boundaries and crashes of a trace, in order.
func actions(res sim.Result) []string {
	var out []string
	for _, s := range res.Trace {
		if s.Kind == sim.EventEffect || s.Kind == sim.EventCrash {
			out = append(out, s.Process+" "+s.Action)
		}
	}
	return out
}

func run(t *testing.T, cfg sim.Config) sim.Result {
	t.Helper()
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestHappyPathGoesOrderOutboxRelayBrokerBilling(t *testing.T) {
	res := run(t, sim.DefaultConfig(variant.Outbox(), onePlace(), 1))
	if res.Outcome != variant.OK {
		t.Fatalf("outcome %s: %v", res.Outcome, res.Violations)
	}
	want := []string{
		"service service.commit",
		"relay-1 relay.claim",
		"relay-1 relay.send",
		"relay-1 relay.mark",
		"billing consumer.commit",
		"billing consumer.ack",
		"relay-1 relay.cleanup", // the operator's cleanup, a week later
	}
	if diff := cmp.Diff(want, actions(res)); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
}

func TestCrashBeforeServiceCommitLeavesNothing(t *testing.T) {
	cfg := sim.DefaultConfig(variant.Outbox(), onePlace(), 1)
	cfg.Crashes = []sim.Crash{{Point: "service.before-commit", Occurrence: 1}}
	res := run(t, cfg)
	want := []string{"service service.before-commit"}
	if diff := cmp.Diff(want, actions(res)); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
	if res.Outcome != variant.OK || len(res.Fired) != 1 {
		t.Fatalf("outcome %s, fired %v: %v", res.Outcome, res.Fired, res.Violations)
	}
}

func TestRelayCrashAfterSendSendsAgainAndBillingDeduplicates(t *testing.T) {
	cfg := sim.DefaultConfig(variant.Outbox(), onePlace(), 1)
	cfg.Crashes = []sim.Crash{{Point: "relay.after-send", Occurrence: 1}}
	res := run(t, cfg)
	if res.Outcome != variant.OK {
		t.Fatalf("outcome %s: %v", res.Outcome, res.Violations)
	}
	got := actions(res)
	want := []string{
		"service service.commit",
		"relay-1 relay.claim",
		"relay-1 relay.send",
		"relay-1 relay.after-send", // the crash
		"billing consumer.commit",  // billing got the first copy meanwhile
		"billing consumer.ack",
		"relay-1 relay.recover", // restarted: releases its claim
		"relay-1 relay.claim",
		"relay-1 relay.send", // the second copy
		"relay-1 relay.mark",
		"billing consumer.ack", // recognised by the inbox, acked, no effect
		"relay-1 relay.cleanup",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
}

func TestDualWriteLosesTheEventWhenItDiesAfterCommit(t *testing.T) {
	cfg := sim.DefaultConfig(mistakes.DualWrite(), onePlace(), 1)
	cfg.Crashes = []sim.Crash{{Point: "service.after-commit", Occurrence: 1}}
	res := run(t, cfg)
	want := []check.Violation{{Outcome: variant.Lost, AggregateID: "o-1", Sequence: 1, Detail: lang.Text{EN: "committed, but billing never applied it", DE: "committet, aber Billing hat sie nie angewendet"}}}
	if diff := cmp.Diff(want, res.Violations); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

func TestAPlannedCrashThatIsNeverReachedDoesNotFire(t *testing.T) {
	cfg := sim.DefaultConfig(variant.Outbox(), onePlace(), 1)
	cfg.Crashes = []sim.Crash{{Point: "relay.after-send", Occurrence: 2}}
	res := run(t, cfg)
	if len(res.Fired) != 0 || res.Reached["relay.after-send"] != 1 {
		t.Fatalf("fired %v, reached %d times", res.Fired, res.Reached["relay.after-send"])
	}
}

func TestDoubleCrashDuringRecovery(t *testing.T) {
	cfg := sim.DefaultConfig(variant.Outbox(), onePlace(), 1)
	cfg.Crashes = []sim.Crash{{Point: "relay.after-claim", Occurrence: 1}, {Point: "relay.before-recover", Occurrence: 1}}
	res := run(t, cfg)
	if len(res.Fired) != 2 {
		t.Fatalf("fired %v, want both crashes", res.Fired)
	}
	if res.Outcome != variant.OK {
		t.Fatalf("outcome %s: %v", res.Outcome, res.Violations)
	}
}

func TestConfigErrorsNameTheField(t *testing.T) {
	cfg := sim.DefaultConfig(variant.Outbox(), onePlace(), 1)
	cfg.Relays = 0
	cfg.Horizon = 0
	cfg.Crashes = []sim.Crash{{Point: "relay-send", Occurrence: 0}}
	cfg.Faults = []sim.Fault{{Kind: "meteor"}, {Kind: sim.FaultWrongCurrency, Target: broker.Target{AggregateID: "o-1", Sequence: 1}}}
	_, err := sim.Run(cfg)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"Relays = 0", "Horizon = 0s", `"relay-send"`, "Occurrence = 0", `unknown fault "meteor" (valid: broker-outage, `,
		`wrong-currency: target "o-1#1" is made by a place command, want an amendment`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestMatrixScenarioNames(t *testing.T) {
	for name, want := range map[string]int{"relay.after-send": 1, "relay.after-send@3": 3} {
		id, k, err := sim.ParseScenarioPoint(name)
		if err != nil || id != "relay.after-send" || k != want {
			t.Errorf("ParseScenarioPoint(%q) = %q, %d, %v", name, id, k, err)
		}
	}
	for _, bad := range []string{"relay.after-send@0", "relay.after-send@x", "relay.after-send@+1", "relay.after-send@"} {
		if _, _, err := sim.ParseScenarioPoint(bad); err == nil {
			t.Errorf("ParseScenarioPoint(%q) accepted", bad)
		}
	}
}

// TestSameSeedSameBytes runs a scenario with a crash, two relays and every
// kind of broker fault twice with one seed and compares the whole rendered
// trace (every delivery, in order) byte for byte; a different seed must
// draw different message ids.
func TestSameSeedSameBytes(t *testing.T) {
	render := func(seed uint64) string {
		cfg := sim.DefaultConfig(variant.Outbox(), threeOrders(), seed)
		cfg.Crashes = []sim.Crash{{Point: "relay.after-send", Occurrence: 2}}
		cfg.Relays = 2
		cfg.Faults = []sim.Fault{
			{Kind: sim.FaultOutage, From: 500 * time.Millisecond, For: 2 * time.Second},
			{Kind: sim.FaultTimeoutStored, Target: broker.Target{AggregateID: "o-2", Sequence: 1}},
			{Kind: sim.FaultTimeoutDropped, Target: broker.Target{AggregateID: "o-1", Sequence: 2}},
			{Kind: sim.FaultDuplicate, Target: broker.Target{AggregateID: "o-3", Sequence: 1}},
			{Kind: sim.FaultReorder, Target: broker.Target{AggregateID: "o-1", Sequence: 1}},
			{Kind: sim.FaultPoison, Target: broker.Target{AggregateID: "o-3", Sequence: 1}},
		}
		res := run(t, cfg)
		var b strings.Builder
		for _, s := range res.Trace {
			fmt.Fprintln(&b, s)
		}
		fmt.Fprintln(&b, res.Outcome, res.Violations, res.Fired, res.Duration)
		return b.String()
	}
	first, second := render(42), render(42)
	if first != second {
		t.Fatalf("same seed, different traces:\n%s", cmp.Diff(first, second))
	}
	if !strings.Contains(first, "crash") {
		t.Fatalf("the planned crash did not fire:\n%s", first)
	}
	if other := render(43); other == first {
		t.Fatal("seeds 42 and 43 gave identical traces: the seed does not reach the run")
	}
}

// TestParallelMatrixEqualsSequential: the matrix and the sweep give the same
// results, in the same order, on all cores and on one.
func TestParallelMatrixEqualsSequential(t *testing.T) {
	m := sim.Matrix{Workload: threeOrders(), Seed: 3, Points: []sim.Point{
		{ID: "relay.after-send", Kind: sim.KindCrash},
		{ID: "consumer.after-commit", Kind: sim.KindCrash},
		{ID: "publish-timeout-stored", Kind: sim.KindFault, Faults: []sim.Fault{{Kind: sim.FaultTimeoutStored, Target: broker.Target{AggregateID: "o-1", Sequence: 1}}}},
	}}
	variants := []variant.Variant{variant.Outbox(), mistakes.NonIdempotentConsumer(), mistakes.DualWrite()}
	seq, par := m, m
	seq.Workers, par.Workers = 1, 4
	a, err := seq.Run(variants)
	if err != nil {
		t.Fatal(err)
	}
	b, err := par.Run(variants)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("parallel matrix differs (-sequential +parallel):\n%s", diff)
	}
	sa, err := seq.Sweep(variant.Outbox())
	if err != nil {
		t.Fatal(err)
	}
	sb, err := par.Sweep(variant.Outbox())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sa, sb); diff != "" || sa.Runs < 50 {
		t.Fatalf("parallel sweep differs or is empty (%d runs) (-sequential +parallel):\n%s", sa.Runs, diff)
	}
}

// TestKillAbandonsAStepInTheMiddle: relay-1 freezes before its first send
// and is killed while frozen; its claim is released by its recovery right
// after the restart, and the message goes out once.
func TestKillAbandonsAStepInTheMiddle(t *testing.T) {
	cfg := sim.DefaultConfig(variant.Outbox(), onePlace(), 1)
	cfg.Faults = []sim.Fault{
		{Kind: sim.FaultStall, Process: "relay-1", Point: "relay.before-send", For: time.Minute},
		{Kind: sim.FaultKill, Process: "relay-1", From: 10 * time.Second},
	}
	res := run(t, cfg)
	if res.Outcome != variant.OK || res.Kills != 1 || res.Stalls != 1 {
		t.Fatalf("outcome %s, %d kill(s), %d stall(s): %v", res.Outcome, res.Kills, res.Stalls, res.Violations)
	}
	want := []string{
		"service service.commit",
		"relay-1 relay.claim",
		"relay-1 kill", // frozen before the send, killed there
		"relay-1 relay.recover",
		"relay-1 relay.claim",
		"relay-1 relay.send",
		"relay-1 relay.mark", // the interleaving of seed 1
		"billing consumer.commit",
		"billing consumer.ack",
		"relay-1 relay.cleanup",
	}
	if diff := cmp.Diff(want, actions(res)); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
	// Its freeze ended with it: restarted at 15 s, it recovers at once,
	// not when the minute its former life was frozen for runs out.
	for _, e := range res.Trace {
		if e.Process == "relay-1" && e.Action == "relay.recover" && e.At > 16*time.Second {
			t.Errorf("relay-1 recovered at %s, after a restart at 15 s", e.At)
		}
	}
}
