package check

import (
	"slices"
	"strings"
	"testing"
	"time"

	"outboxlab/variant"
)

// TestSpacingJudgesTheBackoffOwed: a try sooner than the backoff owed
// after recorded failures is STORM; a failure the outbox never recorded
// (a crash before the mark, a lease that ran out) and a successful send
// start the round anew.
func TestSpacingJudgesTheBackoffOwed(t *testing.T) {
	p := variant.CourseRelayPolicy() // 1 s · 2^n, capped at 300 s
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	try := func(s time.Duration, failed bool) Try {
		return Try{MessageID: "e-1", AggregateID: "o-1", Sequence: 1, At: t0.Add(s), By: "relay-1", Failed: failed}
	}
	// mark records the failure, and relay-1 claims the message again
	// right after.
	mark := func(s time.Duration) []FailedMark {
		return []FailedMark{{MessageID: "e-1", At: t0.Add(s)}, {MessageID: "e-1", At: t0.Add(s + time.Millisecond), By: "relay-1", Claim: true}}
	}
	marks := func(m ...[]FailedMark) []FailedMark { return slices.Concat(m...) }
	ms := time.Millisecond
	cases := []struct {
		name  string
		tries []Try
		marks []FailedMark
		storm string
	}{
		{"the reference: 2 s, then 4 s", []Try{try(0, true), try(2*time.Second+10*ms, true), try(6*time.Second+20*ms, false)},
			marks(mark(5*ms), mark(2*time.Second+15*ms)), ""},
		{"tried again after 1 s where 2 s are owed", []Try{try(0, true), try(time.Second, false)},
			mark(5 * ms), "was sent again 1s after its failed send 1 in a row, the retry policy's backoff is 2s"},
		{"the second backoff cut short", []Try{try(0, true), try(2*time.Second, true), try(3*time.Second, false)},
			marks(mark(5*ms), mark(2*time.Second+5*ms)), "1s after its failed send 2 in a row, the retry policy's backoff is 4s"},
		{"a failure never recorded starts anew", []Try{try(0, true), try(ms, false)}, nil, ""},
		{"a send that succeeded starts anew", []Try{try(0, true), try(2*time.Second, false), try(2*time.Second+ms, true), try(2*time.Second+2*ms, false)},
			mark(5 * ms), ""},
		{"a try from a claim older than the failure's record starts anew", []Try{try(0, true), try(time.Second, false)},
			mark(5 * ms)[:1], ""},
	}
	for _, c := range cases {
		vs := spacing(c.tries, c.marks, p)
		switch {
		case c.storm == "" && len(vs) > 0:
			t.Errorf("%s: %v, want none", c.name, vs)
		case c.storm != "" && (len(vs) != 1 || vs[0].Outcome != variant.Storm || !strings.Contains(vs[0].String(), c.storm)):
			t.Errorf("%s: %v, want one STORM with %q", c.name, vs, c.storm)
		}
	}
}
