package sim_test

import (
	"fmt"
	"testing"
	"time"

	"outboxlab/domain"
	"outboxlab/orders"
	"outboxlab/sim"
	"outboxlab/variant"
)

// orderWorkload places n orders, 100 ms apart.
func orderWorkload(n int) []sim.Command {
	w := make([]sim.Command, n)
	for i := range w {
		w[i] = sim.Command{At: time.Duration(i) * 100 * time.Millisecond, Command: orders.Command{
			Kind: orders.Place, OrderID: fmt.Sprintf("o-%d", i+1), Amount: domain.MustMoney("10.00", "EUR")}}
	}
	return w
}

// BenchmarkLifecycle moves messages from place-order to invoice through the
// whole simulated world, no crash, and reports the cost per message.
func BenchmarkLifecycle(b *testing.B) {
	const perRun = 100
	cfg := sim.DefaultConfig(variant.Outbox(), orderWorkload(perRun), 1)
	cfg.Trace = false
	b.ReportAllocs()
	for b.Loop() {
		if res, err := sim.Run(cfg); err != nil || res.Outcome != variant.OK {
			b.Fatalf("%v %v", res.Outcome, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perRun), "ns/msg")
}

// BenchmarkCrashRun is one complete crash run of a 10-order workload:
// place, relay, consume, one crash (the relay after its third send),
// restart, quiesce, invariant check.
func BenchmarkCrashRun(b *testing.B) {
	cfg := sim.DefaultConfig(variant.Outbox(), orderWorkload(10), 1)
	cfg.Trace = false
	cfg.Crashes = []sim.Crash{{Point: "relay.after-send", Occurrence: 3}}
	b.ReportAllocs()
	for b.Loop() {
		res, err := sim.Run(cfg)
		if err != nil || res.Outcome != variant.OK || len(res.Fired) != 1 {
			b.Fatalf("%v %v %v", res.Outcome, res.Fired, err)
		}
	}
}

// BenchmarkScaling reports the cost of a crash run as the workload grows,
// for BENCHMARKS.md.
func BenchmarkScaling(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("orders=%d", n), func(b *testing.B) {
			cfg := sim.DefaultConfig(variant.Outbox(), orderWorkload(n), 1)
			cfg.Trace = false
			cfg.Crashes = []sim.Crash{{Point: "relay.after-send", Occurrence: 3}}
			for b.Loop() {
				if res, err := sim.Run(cfg); err != nil || res.Outcome != variant.OK {
					b.Fatalf("%v %v", res.Outcome, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/order")
		})
	}
}
