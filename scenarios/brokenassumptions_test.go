package scenarios_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/inbox"
	"outboxlab/internal/longtest"
	"outboxlab/lab/labtest"
	"outboxlab/lab/verdict"
	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/store"
	"outboxlab/variant"
)

// Each case is a mistake an examiner wrote from the public API alone that
// passed grading at depth course (and full): no run of the matrix, the
// sweeps or exploration contradicts what it assumes. Each is caught at
// one row of scenarios.Assumptions, which a grading at depth course
// plays after the matrix.
func TestTheLabContradictsWhatCodeMayAssume(t *testing.T) {
	cases := []struct {
		name   string
		v      variant.Variant
		row    string
		want   variant.Outcome
		detail string // a violation line that must appear
	}{
		{
			name:   "a consumer that compares sequence numbers as text",
			v:      sequencesAsText(),
			row:    "eleven-events",
			want:   variant.Lost,
			detail: "LOST o-1#10: committed, but billing never applied it",
		},
		{
			name:   "a consumer that fails a payload with a field its contract does not name",
			v:      strictFields(),
			row:    "extra-field",
			want:   variant.Lost,
			detail: `LOST o-1#2: committed, but billing never applied it (billing holds it: failed 3 times: json: unknown field "loyaltyPoints")`,
		},
		{
			name:   "a relay that reads a batch of unsent rows before it looks for due ones",
			v:      labtest.Learner("scan-limit", func(r *labtest.LearnerRelay) { r.ScanLimit = true }),
			row:    "blocked-backlog",
			want:   variant.Stuck,
			detail: "still busy at the end of the horizon",
		},
		{
			name:   "a retention cleanup that takes its cutoff from the host's clock",
			v:      cleaningByHostClock(),
			row:    "skewed-cleanup",
			want:   variant.Unsafe,
			detail: "deleted 167h0m2s after it was SENT: retention keeps a SENT message 168h0m0s",
		},
		{
			// From a second examiner: no run restarted a relay once a
			// dead letter existed.
			name:   "a relay that replays its dead letters at every start",
			v:      labtest.Learner("replay-on-start", func(r *labtest.LearnerRelay) { r.ReplayOnStart = true }),
			row:    "restarts-after-dead-letter",
			want:   variant.Storm,
			detail: "STORM o-1#1",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			outcome, lines := assumptionAt(t, c.v, c.row)
			if outcome != c.want || !strings.Contains(lines, c.detail) {
				t.Errorf("%s at %s: %s, want %s with %q:\n%s", c.v.Name, c.row, outcome, c.want, c.detail, lines)
			}
		})
	}
	// The frames without their mistake pass every row.
	for _, v := range []variant.Variant{labtest.Learner("learner", func(*labtest.LearnerRelay) {}), peeking("peeking", nil, nil), labtest.Cleaning("cleaning", func(m outbox.Message, cutoff time.Time) bool {
		return m.Status == outbox.Sent && m.SentAt.Before(cutoff)
	})} {
		for _, p := range scenarios.Assumptions() {
			if outcome, lines := assumptionAt(t, v, p.ID); outcome != variant.OK {
				t.Errorf("%s at %s: %s, want OK:\n%s", v.Name, p.ID, outcome, lines)
			}
		}
	}
}

// TestAGradingPlaysTheAssumptions: the grader's own door finds a mistake
// only an assumption row shows (the matrix, run first, finds nothing),
// at that row, with the run that replays it, and stops there.
func TestAGradingPlaysTheAssumptions(t *testing.T) {
	v := sequencesAsText()
	vd, err := verdict.Grade(v, verdict.Options{Depth: verdict.Course, Stop: verdict.StopAfterRedStage})
	if err != nil {
		t.Fatal(err)
	}
	if len(vd.Findings) == 0 {
		t.Fatalf("%s at depth course: passed", v.Name)
	}
	f := vd.Findings[0]
	if f.Stage != verdict.StageAssumptions || f.Point != "eleven-events" || f.Outcome != variant.Lost || f.Run.Name() != "eleven-events" {
		t.Errorf("first finding %s at %q (%s), run %q; want assumptions at eleven-events (LOST), run eleven-events", f.Stage, f.Point, f.Outcome, f.Run.Name())
	}
	// blocked-backlog's o-1 has 101 events too.
	if got, _ := vd.Stage(verdict.StageAssumptions); got.Runs != len(scenarios.Assumptions()) || got.Failed != 2 {
		t.Errorf("assumptions stage: %d runs, %d failed; want %d, 2", got.Runs, got.Failed, len(scenarios.Assumptions()))
	}
	if _, ran := vd.Stage(verdict.StageSweep); ran {
		t.Errorf("the sweep ran after the assumptions found %s: StopAfterRedStage", v.Name)
	}
}

// TestEveryCorrectVariantHoldsAtTheAssumptions: every variant of the lab
// that claims to be correct (the matrix's columns and the extras) is OK
// at every assumption row, so that a grading at depth course passes it.
func TestEveryCorrectVariantHoldsAtTheAssumptions(t *testing.T) {
	for _, v := range append(scenarios.Variants(), scenarios.Extras()...) {
		if !v.Correct() {
			continue
		}
		for _, p := range scenarios.Assumptions() {
			// n/a where the variant has no process the row's faults
			// aim at (restarts-after-dead-letter kills relay-1; a
			// listen-to-yourself service has no relay), as the grader
			// counts a cell: OK.
			if outcome, lines := assumptionAt(t, v, p.ID); outcome != variant.OK && outcome != variant.NotApplicable {
				t.Errorf("%s at %s: %s, want OK:\n%s", v.Name, p.ID, outcome, lines)
			}
		}
	}
}

// TestTheAssumptionsAloneCatchTheExaminersMistakes grades each broken
// variant of TestTheLabContradictsWhatCodeMayAssume whole, at depth
// course, as the examiner did: every finding is the assumptions' (each
// passed every other stage, and so passed before the stage existed).
func TestTheAssumptionsAloneCatchTheExaminersMistakes(t *testing.T) {
	longtest.Only(t, "long_caught", "TestAGradingPlaysTheAssumptions")
	for _, v := range []variant.Variant{sequencesAsText(), strictFields(), labtest.Learner("scan-limit", func(r *labtest.LearnerRelay) { r.ScanLimit = true }), cleaningByHostClock()} {
		vd, err := verdict.Grade(v, verdict.Options{Depth: verdict.Course})
		if err != nil {
			t.Fatal(err)
		}
		if vd.Passed() {
			t.Errorf("%s: passed at depth course", v.Name)
		}
		for _, f := range vd.Findings {
			if f.Stage != verdict.StageAssumptions {
				t.Errorf("%s: a finding of stage %s at %q: %s", v.Name, f.Stage, f.Run.Name(), f.Detail.EN)
			}
		}
	}
}

// assumptionAt runs v at the assumption row id and returns the outcome
// and its violations, one a line.
func assumptionAt(t *testing.T, v variant.Variant, id string) (variant.Outcome, string) {
	t.Helper()
	for _, p := range scenarios.Assumptions() {
		if p.ID != id {
			continue
		}
		cell, err := scenarios.Matrix().RunCell(v, p)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, v := range cell.Violations {
			lines = append(lines, v.String())
		}
		if cell.Missteps.Any() {
			lines = append(lines, fmt.Sprintf("missteps: %+v", cell.Missteps))
			cell.Outcome = max(cell.Outcome, variant.Mismatch) // not OK, whatever the outcome
		}
		return cell.Outcome, strings.Join(lines, "\n")
	}
	t.Fatalf("no assumption row %q", id)
	return variant.OK, ""
}

// sequencesAsText is the reference whose consumer's stale check compares
// sequence numbers as text: "10" <= "9", so it takes o-1#10 for a change
// already applied and drops it, and #11 with it ("11" <= "9").
func sequencesAsText() variant.Variant {
	return peeking("sequences-as-text", func(applied int, e domain.Record) bool {
		return strconv.Itoa(e.Sequence) <= strconv.Itoa(applied)
	}, nil)
}

// strictFields is the reference whose consumer decodes strictly: a
// payload field its contract does not name fails the message (a
// compatible change, which a tolerant reader ignores, chapter 000 section
// 9), until it is a dead letter.
func strictFields() variant.Variant {
	return peeking("strict-fields", nil, func(r domain.Record) error {
		if _, err := domain.Decode(r); err != nil {
			return nil // what the contract cannot read: the reference's to handle
		}
		var target any
		switch r.Type {
		case domain.TypeOrderAccepted:
			target = &domain.OrderAccepted{}
		case domain.TypeOrderAmended:
			target = &domain.OrderAmended{}
		case domain.TypeOrderCancelled:
			target = &domain.OrderCancelled{}
		default:
			return nil
		}
		dec := json.NewDecoder(strings.NewReader(r.Payload))
		dec.DisallowUnknownFields()
		return dec.Decode(target)
	})
}

// peeking is the reference consumer with a look at each delivery before
// it: stale, if not nil, says a delivery is a change already applied
// (given the aggregate's applied sequence), and the consumer acknowledges
// it without an effect; refuse, if not nil, fails the delivery's effect
// with its error.
func peeking(name string, stale func(applied int, r domain.Record) bool, refuse func(domain.Record) error) variant.Variant {
	v := variant.Outbox()
	v.Name = name
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		c := &peekingConsumer{env: env, stale: stale, refuse: refuse, refused: map[string]error{}}
		c.held = &heldSource{Source: env.Broker}
		cfg := inbox.DefaultConfig(env.Owner, variant.Subscription)
		ref, err := inbox.NewConsumer(cfg, inbox.Deps{DB: env.BillingDB, Broker: c.held, Gate: env.Gate, Clock: env.Clock, Effect: c.apply})
		if err != nil {
			return nil, err
		}
		c.Consumer = ref
		return c, nil
	}
	return v
}

type peekingConsumer struct {
	*inbox.Consumer
	env     variant.Env
	held    *heldSource
	stale   func(int, domain.Record) bool
	refuse  func(domain.Record) error
	refused map[string]error // by message id
}

func (c *peekingConsumer) Step() (bool, error) {
	d, ok := c.env.Broker.Receive(variant.Subscription)
	if !ok {
		return false, nil
	}
	if c.refuse != nil {
		delete(c.refused, d.Envelope.ID)
		if err := c.refuse(d.Envelope.Event); err != nil {
			c.refused[d.Envelope.ID] = err
		}
	}
	if c.stale != nil {
		tx := c.env.BillingDB.Begin(c.env.Owner)
		applied := inbox.LoadApplied(tx, d.Envelope.Event.AggregateID)
		tx.Rollback()
		if c.stale(applied, d.Envelope.Event) {
			err := c.env.Gate.Cross(inbox.BoundaryAck, func() error { return c.env.Broker.Ack(variant.Subscription, d.Tag) })
			if err != nil {
				return true, fmt.Errorf("inbox: ack %s: %w", d.Envelope.ID, err)
			}
			return true, nil
		}
	}
	c.held.d = &d
	return c.Consumer.Step()
}

func (c *peekingConsumer) apply(tx *store.Tx, e domain.Event, messageID string, now time.Time) error {
	if err := c.refused[messageID]; err != nil {
		return err
	}
	return billing.ApplyEffect(tx, e, messageID, now)
}

// heldSource hands the reference consumer the delivery its frame took.
type heldSource struct {
	inbox.Source
	d *broker.Delivery
}

func (s *heldSource) Receive(string) (broker.Delivery, bool) {
	if s.d == nil {
		return broker.Delivery{}, false
	}
	d := *s.d
	s.d = nil
	return d, true
}

// cleaningByHostClock is the reference whose retention cleanup takes its
// cutoff from the relay's own clock (the host's), not the database's.
func cleaningByHostClock() variant.Variant {
	v := labtest.Cleaning("cleanup-by-host-clock", func(m outbox.Message, cutoff time.Time) bool {
		return m.Status == outbox.Sent && m.SentAt.Before(cutoff)
	})
	build := v.NewRelay
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := build(env)
		if err != nil {
			return nil, err
		}
		c := r.(labtest.Cleaner)
		c.HostClock = true
		return c, nil
	}
	return v
}
