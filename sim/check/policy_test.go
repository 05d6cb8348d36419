package check_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"outboxlab/sim/check"
	"outboxlab/variant"
)

// TestTheCoursePolicyIsWithinTheLabsBounds: the chapters' numbers, as
// the reference declares them: 9 tries of one message and 63 requests in
// a ten-minute outage, a message given up after 13.5 minutes of failures,
// and no finding whatever a run puts them to.
func TestTheCoursePolicyIsWithinTheLabsBounds(t *testing.T) {
	r, c := variant.CourseRelayPolicy(), variant.CourseConsumerPolicy()
	if n := r.TriesWithin(variant.TransientOutage); n != 9 {
		t.Errorf("tries in ten minutes: %d, want 9", n)
	}
	if n := check.DownBudget(variant.TransientOutage, r.Pause); n != 63 {
		t.Errorf("requests in ten minutes: %d, want 63", n)
	}
	if w, ends := r.RetryWindow(); w != 810*time.Second || !ends {
		t.Errorf("retry window: %s %v, want 13m30s", w, ends)
	}
	all := check.Exercise{Refused: 1, Faults: check.Faults{Outages: []time.Duration{time.Hour}, Timeouts: 1, Rejected: true,
		Billing: []check.MessageFaults{{AggregateID: "o-1", Sequence: 1, Corrupted: 1, Unprocessable: true}}}}
	if fs := check.PolicyFindings(r, c, all); len(fs) > 0 {
		t.Errorf("findings on the course's policies: %v", fs)
	}
}

// TestFindingsNeedARunThatPutsThePolicyToTheTest: a finding on backoff,
// pause or giving up needs a refused publish, one on never giving up a
// message the broker refuses for good, one on a consumer that parks at
// once a corrupted delivery; retention is put to the test in every run.
func TestFindingsNeedARunThatPutsThePolicyToTheTest(t *testing.T) {
	course := variant.CourseRelayPolicy()
	hammer, forever, impatient, short := course, course, course, course
	hammer.BackoffCap, hammer.PauseCap, hammer.MaxAttempts = time.Second, time.Second, 1<<30
	forever.MaxAttempts = 0
	impatient.MaxAttempts = 2
	short.Retention = time.Hour
	outage := check.Faults{Outages: []time.Duration{10 * time.Minute}}
	cases := []struct {
		name  string
		r     variant.RelayPolicy
		c     variant.ConsumerPolicy
		e     check.Exercise
		wants []variant.Outcome
	}{
		{"hammer, nothing refused", hammer, variant.ConsumerPolicy{}, check.Exercise{Faults: outage}, nil},
		{"hammer in an outage", hammer, variant.ConsumerPolicy{}, check.Exercise{Faults: outage, Refused: 1}, []variant.Outcome{variant.Storm, variant.Storm}},
		{"for ever, no rejection", forever, variant.ConsumerPolicy{}, check.Exercise{Faults: outage, Refused: 1}, nil},
		{"for ever, rejected", forever, variant.ConsumerPolicy{}, check.Exercise{Faults: check.Faults{Rejected: true}, Refused: 1}, []variant.Outcome{variant.Stuck}},
		{"two attempts, rejected only", impatient, variant.ConsumerPolicy{}, check.Exercise{Faults: check.Faults{Rejected: true}, Refused: 1}, nil},
		{"two attempts in an outage", impatient, variant.ConsumerPolicy{}, check.Exercise{Faults: outage, Refused: 1}, []variant.Outcome{variant.GaveUp}},
		{"an hour's retention", short, variant.ConsumerPolicy{}, check.Exercise{}, []variant.Outcome{variant.Unsafe}},
		{"a consumer that parks at once, nothing corrupted", variant.RelayPolicy{}, variant.ConsumerPolicy{MaxAttempts: 1}, check.Exercise{}, nil},
		{"a consumer that parks at once, a delivery corrupted", variant.RelayPolicy{}, variant.ConsumerPolicy{MaxAttempts: 1},
			check.Exercise{Faults: check.Faults{Billing: []check.MessageFaults{{Corrupted: 1}}}}, []variant.Outcome{variant.GaveUp}},
		{"a consumer that never parks, poison", variant.RelayPolicy{}, variant.ConsumerPolicy{UnknownAtOnce: true},
			check.Exercise{Faults: check.Faults{Billing: []check.MessageFaults{{Unprocessable: true}}}}, []variant.Outcome{variant.Stuck}},
	}
	for _, c := range cases {
		var got []variant.Outcome
		for _, f := range check.PolicyFindings(c.r, c.c, c.e) {
			got = append(got, f.Outcome)
			if f.Text.EN == "" || f.Text.DE == "" || f.Text.EN == f.Text.DE {
				t.Errorf("%s: %q: want the finding in English and German", c.name, f.Text)
			}
		}
		if len(got) != len(c.wants) {
			t.Errorf("%s: findings %v, want %v", c.name, got, c.wants)
			continue
		}
		for i := range got {
			if got[i] != c.wants[i] {
				t.Errorf("%s: findings %v, want %v", c.name, got, c.wants)
			}
		}
	}
}

// TestBudgetsComeFromThePolicy: what a run allows is the declared
// policy's: a transient outage is one its retries outlast (or the
// chapters' ten minutes), billing's attempts are its MaxAttempts, a
// policy without a pause or a limit sets no budget instead of an
// overflowing one.
func TestBudgetsComeFromThePolicy(t *testing.T) {
	course, c := variant.CourseRelayPolicy(), variant.CourseConsumerPolicy()
	outage := func(d time.Duration) check.Faults { return check.Faults{Outages: []time.Duration{d}} }
	if !outage(13*time.Minute).Transient(course, c) || outage(14*time.Minute).Transient(course, c) {
		t.Error("the course's policy outlasts 13 minutes and not 14")
	}
	impatient := course
	impatient.MaxAttempts = 2
	if !outage(10*time.Minute).Transient(impatient, c) || outage(11*time.Minute).Transient(impatient, c) {
		t.Error("a policy that gives up in 2s: ten minutes are still transient, eleven not")
	}
	if outage(0).Transient(course, variant.ConsumerPolicy{MaxAttempts: 3}) != true {
		t.Error("no fault: transient")
	}
	for _, tc := range []struct {
		m    check.MessageFaults
		want int
	}{
		{check.MessageFaults{Unprocessable: true}, 3},
		{check.MessageFaults{Unknown: true}, 1},
		{check.MessageFaults{Unknown: true, Corrupted: 1}, 2},
		{check.MessageFaults{Corrupted: 2}, 0},
		{check.MessageFaults{Corrupted: 3}, 3},
	} {
		if got := check.Allowed(c, tc.m); got != tc.want {
			t.Errorf("%+v: allowed %d, want %d", tc.m, got, tc.want)
		}
	}
	if got := check.Allowed(variant.ConsumerPolicy{MaxAttempts: 5}, check.MessageFaults{Unknown: true}); got != 5 {
		t.Errorf("a consumer that retries unknown contracts too: allowed %d, want 5", got)
	}
	if got := check.PublishBudget(course, 1, 2); got != 22 {
		t.Errorf("publish budget %d, want 22", got)
	}
	forever := course
	forever.MaxAttempts = math.MaxInt
	if got := check.PublishBudget(forever, 1, 2); got != 0 {
		t.Errorf("a policy without a limit: budget %d, want 0 (no check)", got)
	}
	if got := check.OutageBudget(course, outage(10*time.Minute), 2); got != 126 {
		t.Errorf("down budget for two relays %d, want 126", got)
	}
	nopause := course
	nopause.PauseCap, nopause.PauseBase = 0, 0
	if got := check.OutageBudget(nopause, outage(10*time.Minute), 1); got != 0 {
		t.Errorf("no pause: down budget %d, want 0 (no check)", got)
	}
	tiny := course
	tiny.PauseBase, tiny.PauseCap = time.Nanosecond, time.Nanosecond
	if got := check.DownBudget(time.Hour, tiny.Pause); got != math.MaxInt {
		t.Errorf("a pause of a nanosecond: %d, want math.MaxInt, at once", got)
	}
}

// TestAPolicyNoRelayCanHaveIsAnError: a negative count or duration, a cap
// below its base, jitter outside [0, 1): each named with what is valid.
// A policy that hammers or never gives up is valid (and a finding).
func TestAPolicyNoRelayCanHaveIsAnError(t *testing.T) {
	bad := variant.CourseRelayPolicy()
	bad.MaxAttempts, bad.BackoffCap, bad.Jitter, bad.Retention = -1, 0, 1, -time.Hour
	err := bad.Validate()
	for _, want := range []string{"MaxAttempts = -1, want >= 0", "BackoffCap = 0s, want >= BackoffBase", "Jitter = 1, want in [0, 1)", "Retention = -1h0m0s, want >= 0"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: want it to say %q", err, want)
		}
	}
	hammer := variant.CourseRelayPolicy()
	hammer.MaxAttempts, hammer.PauseBase, hammer.PauseCap = 0, 0, 0
	if err := hammer.Validate(); err != nil {
		t.Errorf("a policy that never gives up and never pauses: %v, want valid", err)
	}
	if err := (variant.ConsumerPolicy{MaxAttempts: -2}).Validate(); err == nil || !strings.Contains(err.Error(), "MaxAttempts = -2, want >= 0") {
		t.Errorf("consumer: %v", err)
	}
}
