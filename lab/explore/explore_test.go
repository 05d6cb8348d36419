package explore_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"outboxlab/domain"
	"outboxlab/effect/effecttest"
	"outboxlab/internal/longtest"
	"outboxlab/lab/explore"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// maxChecks bounds how many random schedules the teeth may need.
const maxChecks = 300

// TestTeeth: for every mistake and every kind of violation it declares,
// exploration finds that kind within maxChecks random schedules and shrinks
// it to a short counterexample. A suite that cannot catch the known bugs is
// worthless. go test ./... tries three mistakes of three kinds (a crash,
// two relays at once, a consumer): TestCrashMatrix holds every mistake at
// its rows there; the long form tries every mistake.
func TestTeeth(t *testing.T) {
	long := longtest.Long(t, "long_explore")
	for _, v := range scenarios.Variants() {
		if v.Correct() || !long && !everydayTeeth[v.Name] {
			continue
		}
		if why, ok := beyondExploration[v.Name]; ok {
			t.Logf("%s: left out: %s", v.Name, why)
			continue
		}
		kinds := map[variant.Outcome]bool{}
		for _, o := range v.Expect {
			kinds[o] = true
		}
		for _, kind := range variant.Outcomes() {
			if !kinds[kind] {
				continue
			}
			t.Run(v.Name+"/"+kind.String(), func(t *testing.T) {
				t.Parallel()
				keep := func(res sim.Result) bool { return res.Outcome == kind }
				f, err := explore.Explore(v, maxChecks, 1, explore.Options{Keep: keep})
				if err != nil {
					t.Fatal(err)
				}
				if f == nil {
					t.Fatalf("no %s found in %d schedules", kind, maxChecks)
				}
				if size := f.Schedule.Size(); size > 4 {
					t.Errorf("shrunk counterexample has %d items, want at most 4:\n%v", size, f.Schedule.Lines())
				}
				t.Logf("%s %s: found after %d schedule(s), shrunk from %d to %d items: %v",
					v.Name, kind, f.Runs, f.Original.Size(), f.Schedule.Size(), f.Schedule.Lines()[1:])
			})
		}
	}
}

// everydayTeeth are the mistakes go test ./... explores.
var everydayTeeth = map[string]bool{"dual-write": true, "recover-all": true, "non-idempotent-consumer": true}

// beyondExploration are the mistakes whose failures need more than a
// random schedule draws: TestCrashMatrix holds each at the row built for
// it. (cron-relay was one, until exploration drew outages from the start
// of a run: TestEveryMistakeIsFoundWithin3000Schedules.)
var beyondExploration = map[string]string{}

// TestExploreIsTheSameOnOneCoreAndOnAll: the finding does not depend on
// how many schedules run at once.
func TestExploreIsTheSameOnOneCoreAndOnAll(t *testing.T) {
	v, _ := scenarios.FindVariant("non-idempotent-consumer")
	one, err := explore.Explore(v, 200, 7, explore.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	all, err := explore.Explore(v, 200, 7, explore.Options{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	if one == nil || all == nil || one.Runs != all.Runs || fmt.Sprint(one.Schedule.Lines()) != fmt.Sprint(all.Schedule.Lines()) {
		t.Fatalf("one core: %+v\nall cores: %+v", one, all)
	}
}

// TestExplorationReachesEverySituation: random schedules for the reference
// go through every situation the lab names (a late commit, a lease taken
// over, a dead letter replayed, ...). A generator that stopped producing
// one would leave that part of the reference untested without a word.
func TestExplorationReachesEverySituation(t *testing.T) {
	v, _ := scenarios.FindVariant("outbox")
	reached := map[sim.Situation]int{}
	f, err := explore.Explore(v, 500, 1, explore.Options{Observe: func(res sim.Result) {
		for s, n := range res.Situations {
			reached[s] += n
		}
	}})
	if err != nil || f != nil {
		t.Fatalf("explore: %v %v", err, f)
	}
	for _, s := range sim.Situations() {
		if reached[s] == 0 {
			t.Errorf("no schedule reached %s (reached: %v)", s, sim.SortedSituations(reached))
		}
	}
}

// TestExplorationFindsAClaimThatOutlivesItsRelay: a relay whose claims
// never expire (it releases its own after a restart, so every crash and
// restart passes) is found when a relay is lost for good and another must
// take its claims over. It declares its endless lease (claims written
// longer than a declared lease are LATE at once), which is LATE itself
// where a relay is killed: the exploration looks for the STUCK.
func TestExplorationFindsAClaimThatOutlivesItsRelay(t *testing.T) {
	endless := func(c *outbox.Config) { c.Lease = 100 * 365 * 24 * time.Hour }
	v := variant.Outbox()
	v.Name = "endless-lease"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := variant.ReferenceRelay(env, endless)
		if err != nil {
			return nil, err
		}
		return variant.AdaptRelay(r), nil
	}
	cfg := outbox.DefaultConfig("relay")
	endless(&cfg)
	v.Policy.Relay = variant.RelayPolicyOf(cfg)
	f, err := explore.Explore(v, 1000, 1, explore.Options{Keep: func(res sim.Result) bool { return res.Outcome == variant.Stuck }})
	if err != nil {
		t.Fatal(err)
	}
	if f == nil || f.Result.Outcome != variant.Stuck {
		t.Fatalf("finding %v, want STUCK", f)
	}
	t.Logf("found in %d of %d schedules: %v", f.Found, f.Runs, f.Schedule.Lines())
}

// TestExplorationFindsAnErrorARelayShouldHaveHandled: a relay that hands
// its caller the database's refusal of a claim another relay committed
// first keeps every invariant (its claim is simply not there), but
// Relay.Run would stop at it. Random schedules with two relays find it.
func TestExplorationFindsAnErrorARelayShouldHaveHandled(t *testing.T) {
	v := variant.Outbox()
	v.Name = "lost-race-is-an-error"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		env.Gate = effecttest.HidesConflicts{Gate: env.Gate}
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return variant.AdaptRelay(r), nil
	}
	f, err := explore.Explore(v, 1000, 1, explore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f == nil || f.Result.Outcome != variant.OK || len(f.Result.Unhandled) == 0 || !strings.Contains(f.Result.Unhandled[0], "serialization failure") {
		t.Fatalf("finding %+v, want OK with an unhandled serialization failure", f)
	}
	t.Logf("found in %d of %d schedules: %v: %s", f.Found, f.Runs, f.Schedule.Lines(), f.Result.Unhandled[0])
}

// ignoresRefusals is a service that answers a command on a cancelled
// order with success and does nothing: it took the domain's refusal for
// "nothing to do".
type ignoresRefusals struct{ variant.Service }

func (s ignoresRefusals) Handle(c orders.Command) error {
	err := s.Service.Handle(c)
	if errors.Is(err, domain.ErrOrder) {
		return nil
	}
	return err
}

// TestExplorationFindsAServiceThatSaysOKToARefusedCommand: one schedule in
// four ends with an amendment of a cancelled order, which the service must
// refuse. One that answers it with success told its client of a change
// the database does not hold: LOST.
func TestExplorationFindsAServiceThatSaysOKToARefusedCommand(t *testing.T) {
	v := variant.Outbox()
	v.Name = "ignores-refusals"
	reference := v.NewService
	v.NewService = func(env variant.Env) (variant.Service, error) {
		s, err := reference(env)
		return ignoresRefusals{s}, err
	}
	f, err := explore.Explore(v, 1000, 1, explore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f == nil || f.Result.Outcome != variant.Lost || !strings.Contains(f.Result.Violations[0].Detail.EN, "answered") {
		t.Fatalf("finding %v, want LOST: a command answered with success and not committed", f)
	}
	t.Logf("found in %d of %d schedules: %v", f.Found, f.Runs, f.Schedule.Lines())
}
