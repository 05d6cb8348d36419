package outbox_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"outboxlab/outbox"
)

// BenchmarkClaimDue claims a batch of 100 due messages next to 1,000 or
// 1,000,000 SENT ones, reusing one batch buffer as the relay's Step does.
// Thanks to the partial index of unsent messages the claim does the same
// work next to either (chapter 003: "Der partielle Index ... ist
// entscheidend"): with GOGC=off both cost the same. With the collector on,
// the claims' garbage makes it mark the million live rows, and the claiming
// goroutine pays part of that (BENCHMARKS.md).
func BenchmarkClaimDue(b *testing.B) {
	for _, sent := range []int{1000, 1000000} {
		b.Run(fmt.Sprintf("sent=%d", sent), func(b *testing.B) {
			f := newFixture(b)
			tx := f.db.Begin("seed")
			for i := range sent {
				m, err := outbox.Append(tx, fmt.Sprintf("e-sent-%d", i), amended(fmt.Sprintf("o-%d", i)), t0)
				if err != nil {
					b.Fatal(err)
				}
				m.Status, m.SentAt = outbox.Sent, t0
				tx.Put(outbox.Table, m.Key, m)
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
			for i := range 100 {
				f.add(fmt.Sprintf("due-%d", i), 1)
			}
			// A lease shorter than the clock step: every claim takes over the
			// previous one's expired claims, so each iteration claims 100.
			r := f.relay("relay-1", func(c *outbox.Config) { c.Lease = time.Millisecond })
			runtime.GC() // the setup's garbage is not the claim's cost
			b.ReportAllocs()
			b.ResetTimer()
			var batch []outbox.Message
			for b.Loop() {
				f.clock.Advance(time.Second)
				var err error
				batch, err = r.ClaimDue()
				if err != nil || len(batch) != 100 {
					b.Fatalf("claimed %d, %v", len(batch), err)
				}
			}
		})
	}
}
