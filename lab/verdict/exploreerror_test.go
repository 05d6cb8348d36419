package verdict

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"outboxlab/variant"
)

// TestAnExplorationThatEndsInAnErrorReportsItsSchedule: a relay that
// cannot be built as a third instance passes the matrix and the sweeps
// (they run two relays at most); exploration draws three and ends in the
// error. The finding said "exploration 0 of 0 schedules", with no
// schedule and a replay that repeated the error; it names the schedule
// that failed, what failed in it, and an exploration that ends there.
func TestAnExplorationThatEndsInAnErrorReportsItsSchedule(t *testing.T) {
	v := variant.Outbox()
	v.Name = "no-third-relay"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		if env.Owner == "relay-3" {
			return nil, errors.New("relay-3: no host for a third instance")
		}
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return variant.AdaptRelay(r), nil
	}
	g := newGrader(v, Options{Depth: Course})
	g.run(StageExplore)
	if len(g.out.Findings) != 1 {
		t.Fatalf("findings %+v, want one", g.out.Findings)
	}
	f := g.out.Findings[0]
	groups := g.out.Groups()
	headline, report := groups[0].Headline().EN, groups[0].Report(0, groups[0].Hint(), f.Run.Command("labrun"), 1000)
	for _, want := range []string{
		"a run that could not be made, in 1 run: exploration 1 of " + strconv.Itoa(f.Tried) + " schedules",
		"in random schedule " + strconv.Itoa(f.Tried) + ": seed ",
		", 3 relay(s)",
		"relay-3: no host for a third instance",
		"labrun explore --variant no-third-relay --runs " + strconv.Itoa(f.Tried) + " --seed 1",
	} {
		if !strings.Contains(headline+"\n"+report, want) {
			t.Errorf("the report does not say %q:\n%s\n%s", want, headline, report)
		}
	}
	if f.Tried < 1 || f.Run.ExploreRuns != f.Tried || len(f.Run.Schedule) == 0 {
		t.Errorf("finding %+v: want the schedule's number as the runs to replay, and its lines", f)
	}
}
