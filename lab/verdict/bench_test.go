package verdict_test

import (
	"testing"

	"outboxlab/lab/verdict"
	"outboxlab/variant"
	"outboxlab/variant/varianttest"
)

// BenchmarkGrade grades the reference and a broken relay at each depth
// a course uses: what one variant costs through any door (the target:
// course within 10 s on 2 cores). Each reports its runs.
func BenchmarkGrade(b *testing.B) {
	slip, err := varianttest.Find("relay-swallows-commit-errors")
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range []variant.Variant{variant.Outbox(), slip.Variant(1)} {
		for _, d := range []verdict.Depth{verdict.Quick, verdict.Course} {
			b.Run(v.Name+"/"+d.String(), func(b *testing.B) {
				runs := 0
				for b.Loop() {
					vd, err := verdict.Grade(v, verdict.Options{Depth: d})
					if err != nil {
						b.Fatal(err)
					}
					runs = vd.Runs()
				}
				b.ReportMetric(float64(runs), "runs")
			})
		}
	}
}
