package domain_test

import (
	"testing"
	"time"

	"outboxlab/domain"
)

var benchEvent = domain.OrderAccepted{OrderID: "o-1", Sequence: 1, Total: domain.MustMoney("10.00", "EUR"),
	AcceptedAt: time.Date(2026, 1, 1, 0, 0, 0, 30e6, time.UTC)}

// BenchmarkEncode is the cost of writing one event's record, which every
// message of a run pays once.
func BenchmarkEncode(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := domain.Encode(benchEvent); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode is the cost of reading it back, which every delivery pays.
func BenchmarkDecode(b *testing.B) {
	r, err := domain.Encode(benchEvent)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := domain.Decode(r); err != nil {
			b.Fatal(err)
		}
	}
}
