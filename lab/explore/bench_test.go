package explore_test

import (
	"testing"

	"outboxlab/lab/explore"
	"outboxlab/variant"
)

// BenchmarkExplore runs exploration of the reference, with interleavings at
// every effect, stalls and every other fault among the drawn schedules, on
// every core, and reports schedules per second. The reference finds
// nothing, so every schedule runs to its end.
func BenchmarkExplore(b *testing.B) {
	const schedules = 2000
	v := variant.Outbox()
	for b.Loop() {
		f, err := explore.Explore(v, schedules, 1, explore.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if f != nil {
			b.Fatalf("the reference broke: %v", f.Schedule.Lines())
		}
	}
	b.ReportMetric(float64(schedules*b.N)/b.Elapsed().Seconds(), "schedules/s")
}
