package verdict_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/inbox"
	"outboxlab/internal/longtest"
	"outboxlab/lab/grade"
	"outboxlab/lab/labtest"
	"outboxlab/lab/verdict"
	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// The lab promises one seed, one run, and checks it: a run made twice
// must go the same way twice (sim.RunTwice), and a grading at depth
// course makes a sample of the matrix's runs first and last and every
// finding's run twice. Each variant below was graded as if deterministic
// before; each makes runs that part.

// TestARunThatDoesNotReplayIsCaught: a relay that jitters its backoff
// from the wall clock writes another retry time in each run of
// broker-outage, and one that sends its batch in a map's order sends the
// backlog of outage-backlog in another order each time. Made twice, each
// run parts from itself, and the divergence names the event.
func TestARunThatDoesNotReplayIsCaught(t *testing.T) {
	cases := []struct {
		name, point string
		v           variant.Variant
		event       string // the first differing event's action
	}{
		{"a relay that jitters its backoff from the wall clock", "broker-outage", wallClockJitter(), "relay.mark"},
		{"a relay that sends its batch in a map's order", "outage-backlog", mapOrderBatch(), "relay.send"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := scenarios.FindPoint(c.point)
			if err != nil {
				t.Fatal(err)
			}
			cfg := scenarios.Matrix().Config(c.v)
			p.Apply(&cfg)
			var d *sim.Divergence
			// A wall clock can read the same twice, and a map of a dozen
			// can range in the same order: a few pairs at most.
			for i := 0; i < 5 && d == nil; i++ {
				if _, d, err = sim.RunTwice(cfg); err != nil {
					t.Fatal(err)
				}
			}
			if d == nil {
				t.Fatalf("%s at %s: made twice five times, the same run each time", c.v.Name, c.point)
			}
			text := d.Text().EN
			if d.First.Action != c.event || !strings.Contains(text, "the wall clock (time.Now), a map ranged over") {
				t.Errorf("the runs part at %s, want %s: %s\n%s", d.First.Action, c.event, text, d.Lines().EN)
			}
		})
	}
	// The reference is the same run twice at the same rows.
	for _, point := range []string{"broker-outage", "outage-backlog"} {
		p, _ := scenarios.FindPoint(point)
		cfg := scenarios.Matrix().Config(variant.Outbox())
		p.Apply(&cfg)
		if _, d, err := sim.RunTwice(cfg); err != nil || d != nil {
			t.Errorf("outbox at %s: %v, the runs part: %+v", point, err, d)
		}
	}
}

// TestStateKeptBetweenRunsIsCaught: a consumer that remembers the message
// ids it handled in a package variable (chapter 000: "Der
// IdempotencyStore muss ... dauerhaft sein, nicht nur ein In-Memory-Set")
// skips, in every run after the first, what an earlier run delivered
// under the same ids: a grading's first run of a row and its last part,
// and the finding names the first event where they do.
func TestStateKeptBetweenRunsIsCaught(t *testing.T) {
	remembered.Lock()
	clear(remembered.ids) // a fresh process, as labrun grade is
	remembered.Unlock()
	vd, err := verdict.Grade(packageStateConsumer(), verdict.Options{Depth: verdict.Course, Stop: verdict.StopAfterRedStage})
	if err != nil {
		t.Fatal(err)
	}
	var found *verdict.Finding
	for i, f := range vd.Findings {
		if f.Outcome == variant.NonDeterministic {
			found = &vd.Findings[i]
			break
		}
	}
	if found == nil {
		t.Fatalf("no NONDETERMINISTIC finding; stages %+v", vd.Stages)
	}
	if found.Stage != verdict.StageReplay || found.Divergence == nil || found.Divergence.Process != "billing" {
		t.Errorf("%+v, want the replay stage's finding, parting at billing", *found)
	}
	for _, g := range vd.Groups() {
		if g.Outcome != variant.NonDeterministic {
			continue
		}
		report := g.Report(0, g.Hint(), g.First().Run.Command("labrun"), 100)
		for _, want := range []string{"NONDETERMINISTIC", "first run:", "second run:", "hint: take time only", "labrun scenario"} {
			if !strings.Contains(report, want) {
				t.Errorf("the report does not say %q:\n%s", want, report)
			}
		}
		if !strings.Contains(g.Hint().EN, "keep nothing in package variables") {
			t.Errorf("the hint does not name package variables: %s", g.Hint().EN)
		}
	}
}

// TestAReplayOfARunThatDoesNotReplaySaysSo: the command a finding prints
// (go test -lab.replay=...) makes its run twice, as labrun does: the
// consumer that remembers ids in a package variable passed its replay,
// made once in a fresh process, although the grading had found it LOST
// and NONDETERMINISTIC.
func TestAReplayOfARunThatDoesNotReplaySaysSo(t *testing.T) {
	remembered.Lock()
	clear(remembered.ids)
	remembered.Unlock()
	run := scenarios.MustParseRun("relay.after-send@1")
	if err := grade.Replay(t, packageStateConsumer(), run); err == nil || !strings.HasPrefix(err.Error(), "NONDETERMINISTIC: the same run made twice parts at its event") {
		t.Errorf("the replay of package-state-consumer: %v, want NONDETERMINISTIC", err)
	}
	if err := grade.Replay(t, variant.Outbox(), run); err != nil {
		t.Errorf("the reference's replay: %v", err)
	}
}

// TestARunThatPartsOnlyAfterAFailedCommitIsCaught: a relay that pauses
// after a failed claim for as long as the host's clock draws makes the
// same runs at every matrix row (no claim fails there) and other runs at
// each failure of its claim's commit. The grader's sample makes the
// first failure of each kind of commit twice (verdict's
// replayFailureSample): before it did, this relay was graded OK at depth
// course and full.
func TestARunThatPartsOnlyAfterAFailedCommitIsCaught(t *testing.T) {
	v := labtest.Learner("wall-pause-after-failed-claim", func(r *labtest.LearnerRelay) { r.WallPause = true })
	sc, err := scenarios.FindScenario("commit-failure:relay.claim@1")
	if err != nil {
		t.Fatal(err)
	}
	var d *sim.Divergence
	for i := 0; i < 5 && d == nil; i++ { // the host's clock may draw the same twice
		if _, d, err = sim.RunTwice(sc.Configure(v, sc.Seed)); err != nil {
			t.Fatal(err)
		}
	}
	if d == nil {
		t.Fatal("made twice five times at commit-failure:relay.claim@1, the same run each time")
	}
	if !longtest.Long(t, "long_caught") {
		return
	}
	vd, err := verdict.Grade(v, verdict.Options{Depth: verdict.Course})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range vd.Findings {
		if f.Outcome == variant.NonDeterministic && f.Run.Name() == "commit-failure:relay.claim@1" {
			return
		}
	}
	t.Errorf("%s: no NONDETERMINISTIC finding at commit-failure:relay.claim@1; findings %+v", v.Name, vd.Findings)
}

// TestEveryShippedVariantReplays: every variant of the catalogue, the
// extras among them, made twice at a crash, under refused sends, with a
// backlog, with a stall and with a refused message, goes the same way
// twice. The everyday suite makes the reference's; the long form
// every variant's.
func TestEveryShippedVariantReplays(t *testing.T) {
	variants := []variant.Variant{variant.Outbox()}
	if longtest.Long(t, "long_explore") {
		variants = append(scenarios.Variants(), scenarios.Extras()...)
	}
	for _, v := range variants {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			for _, point := range []string{"relay.after-send", "broker-outage", "outage-backlog", "stall", "rejected"} {
				p, err := scenarios.FindPoint(point)
				if err != nil {
					t.Fatal(err)
				}
				cfg := scenarios.Matrix().Config(v)
				if p.Kind == sim.KindCrash {
					cfg.Crashes = []sim.Crash{{Point: p.ID, Occurrence: 1}}
				} else {
					p.Apply(&cfg)
				}
				if cfg.Relays < p.MinRelays {
					continue
				}
				_, d, err := sim.RunTwice(cfg)
				if err != nil {
					t.Fatal(err)
				}
				if d != nil {
					t.Errorf("%s at %s: %s\n%s", v.Name, point, d.Text().EN, d.Lines().EN)
				}
			}
		})
	}
}

// wallClockJitter is the reference relay whose jitter comes from the
// host's clock instead of the random source it is given: its retry times
// differ from run to run.
func wallClockJitter() variant.Variant {
	jitter := func(c *outbox.Config) { c.Jitter = 0.5 }
	v := labtest.Declaring(labtest.WithRelayConfig("wall-clock-jitter", jitter), jitter)
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		cfg := outbox.DefaultConfig(env.Owner)
		jitter(&cfg)
		r, err := outbox.NewRelay(cfg, outbox.Deps{DB: env.OrderDB, Broker: env.Broker, Gate: env.Gate, Clock: env.DBClock, Rand: hostClock{}})
		if err != nil {
			return nil, err
		}
		return variant.AdaptRelay(r), nil
	}
	return v
}

// hostClock draws "random" numbers from the host's clock.
type hostClock struct{}

func (hostClock) Float64() float64 { return float64(time.Now().UnixNano()%1_000_000) / 1_000_000 }

// mapOrderBatch is a learner's relay (see labtest.LearnerRelay) that keeps its
// claimed batch in a map by message id and sends it as the map ranges.
func mapOrderBatch() variant.Variant {
	return labtest.Learner("map-order-batch", func(r *labtest.LearnerRelay) { r.MapOrder = true })
}

// remembered are the message ids packageStateConsumer handled, in every
// run of the process.
var remembered = struct {
	sync.Mutex
	ids map[string]bool
}{ids: map[string]bool{}}

// packageStateConsumer is the reference consumer in front of which a
// learner put a cache of the message ids it handled, kept in a package
// variable: a message whose id is in it is acknowledged unprocessed.
func packageStateConsumer() variant.Variant {
	v := variant.Outbox()
	v.Name = "package-state-consumer"
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		c, err := inbox.NewConsumer(inbox.DefaultConfig(env.Owner, variant.Subscription),
			inbox.Deps{DB: env.BillingDB, Broker: cachingSource{env.Broker}, Gate: env.Gate, Clock: env.Clock, Effect: billing.ApplyEffect})
		return c, err
	}
	return v
}

// cachingSource is the broker as the caching consumer reads it: a
// delivery whose id the cache holds is acknowledged and skipped.
type cachingSource struct{ *broker.Broker }

func (s cachingSource) Receive(sub string) (broker.Delivery, bool) {
	for {
		d, ok := s.Broker.Receive(sub)
		if !ok {
			return d, false
		}
		remembered.Lock()
		seen := remembered.ids[d.Envelope.ID]
		remembered.ids[d.Envelope.ID] = true
		remembered.Unlock()
		if !seen {
			return d, true
		}
		_ = s.Broker.Ack(sub, d.Tag)
	}
}
