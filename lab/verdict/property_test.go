package verdict

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"outboxlab/internal/longtest"
	"outboxlab/lab/explore"
	"outboxlab/lang"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
	"outboxlab/variant/varianttest"
)

// TestEveryFailureOfEveryStageBecomesFindings: for a broken frame drawn
// by the property (a relay, consumer or service with one slip, from its
// first, second or third occasion on) and a stage of the course depth,
// the grader does not panic, every failing run of the stage becomes at
// least one finding (a red cell, a sweep's failure, an exploration's
// counterexample), every finding has a cause and a run, every group reads
// as lines with a replay command, and the first finding's run, played
// again, breaks the variant's declaration again.
func TestEveryFailureOfEveryStageBecomesFindings(t *testing.T) {
	longtest.Only(t, "long_verdict", "TestEveryStageTurnsItsFailuresIntoFindings and TestEveryCauseOfEveryRedCellIsAFinding")
	slips := varianttest.Slips()
	stages := []Stage{StageMatrix, StageAssumptions, StageSweep, StageFailureSweep, StagePolled, StageExplore}
	rapid.Check(t, func(rt *rapid.T) {
		slip := rapid.SampledFrom(slips).Draw(rt, "slip")
		from := rapid.IntRange(1, 3).Draw(rt, "from")
		stage := rapid.SampledFrom(stages).Draw(rt, "stage")
		checkStage(rt, slip.Variant(from), stage)
	})
}

// TestEveryCauseOfEveryRedCellIsAFinding: slips, from their first
// occasion on, graded by the matrix: each cause of each red cell (an
// outcome, an error returned, a crash swallowed, a panic, a variant that
// cannot be built) is a finding. go test ./... tries a slip of each
// cause; the long form tries every slip.
func TestEveryCauseOfEveryRedCellIsAFinding(t *testing.T) {
	slips := []string{"consumer-bills-amendments-as-zero", "relay-returns-broker-errors", "relay-swallows-its-crash", "relay-panics-on-a-rejection", "relay-cannot-be-built"}
	if longtest.Long(t, "long_verdict") {
		slips = nil
		for _, s := range varianttest.Slips() {
			slips = append(slips, s.Frame+"-"+s.Name)
		}
	}
	for _, name := range slips {
		slip, err := varianttest.Find(name)
		if err != nil {
			t.Fatal(err)
		}
		checkStage(t, slip.Variant(1), StageMatrix)
	}
}

// TestEveryStageTurnsItsFailuresIntoFindings: each stage beyond the
// matrix, graded on a slip it catches, turns every cause of every failing
// run into a finding. go test ./... grades exploration's, the long form
// each.
func TestEveryStageTurnsItsFailuresIntoFindings(t *testing.T) {
	cases := []struct {
		stage Stage
		slip  string
	}{
		{StageAssumptions, "relay-returns-broker-errors"},
		{StageSweep, "consumer-bills-amendments-as-zero"}, // its run without a crash fails too
		{StageSweep, "relay-cannot-be-built"},             // the sweep cannot run: still a failing run
		{StageFailureSweep, "relay-swallows-commit-errors"},
		{StagePolled, "relay-pauses-only-in-next-wake"},
		{StageExplore, "service-swallows-its-crash"},
	}
	if !longtest.Long(t, "long_verdict") {
		cases = cases[len(cases)-1:] // exploration's: the cheapest (the sweep's first case costs some 6 s)
	}
	for _, c := range cases {
		t.Run(c.stage.String()+"/"+c.slip, func(t *testing.T) {
			slip, err := varianttest.Find(c.slip)
			if err != nil {
				t.Fatal(err)
			}
			checkStage(t, slip.Variant(1), c.stage)
		})
	}
}

// fataler is a test or a property's case.
type fataler interface {
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// checkStage grades stage s of v and fails t unless every cause of every
// failing run of it is a finding, every finding has a cause and a run,
// every group reads as lines with a replay command, and the first
// finding's run, played again, breaks v's declaration again.
func checkStage(t fataler, v variant.Variant, stage Stage) {
	g := newGrader(v, Options{Depth: Course})
	g.plan.runs, g.plan.seeds = 200, 2 // the findings are the point here, not how far exploration looks
	g.run(stage)
	res := g.out.Stages[0]
	found := g.out.Findings
	if res.Failed > 0 && len(found) == 0 || res.Failed == 0 && len(found) > 0 {
		t.Fatalf("%s of %s: %d failing runs, %d findings", stage, v.Name, res.Failed, len(found))
	}
	for _, want := range rawCauses(g, stage) {
		if !slices.ContainsFunc(found, want.matches) {
			t.Fatalf("%s of %s: the run %s failed with %s (%s), and no finding says so", stage, v.Name, want.key, want.cause, want.outcome)
		}
	}
	for _, f := range found {
		if f.Stage != stage || f.Run.Name() == "" && !f.Run.Explore || f.Cause < CauseOutcome || f.Cause > CauseError {
			t.Fatalf("%s of %s: a finding of another stage, or without a run or a cause: %+v", stage, v.Name, f)
		}
	}
	for _, gr := range g.out.Groups() {
		for _, l := range []lang.Lang{lang.English, lang.German} {
			text := gr.Report(l, lang.Text{}, gr.First().Run.Command("labrun"), 100)
			if !strings.Contains(text, "labrun scenario "+gr.First().Run.Name()) && !strings.Contains(text, "labrun explore --variant") {
				t.Fatalf("no replay command in:\n%s", text)
			}
		}
	}
	if len(found) > 0 {
		if err := replaysBroken(v, found[0]); err != "" {
			t.Fatalf("the replay of %+v: %s", found[0], err)
		}
	}
}

// cause is one cause of one failing run, as the stage saw it before the
// grader turned it into findings.
type cause struct {
	key     string // the run: a scenario and its relays, or an exploration's seed
	cause   Cause
	outcome variant.Outcome
}

// matches reports whether f is the finding of c.
func (c cause) matches(f Finding) bool {
	key := fmt.Sprintf("%s/%d", f.Run.Name(), f.Run.Relays)
	if f.Run.Explore {
		key = fmt.Sprintf("explore:%d", f.Run.ExploreSeed)
	}
	return key == c.key && f.Cause == c.cause && (c.cause != CauseOutcome || f.Outcome == c.outcome)
}

// causesOf are the causes of one run's failure.
func causesOf(key string, outcome, expected variant.Outcome, m sim.Missteps, unreported bool) []cause {
	var out []cause
	if outcome != expected {
		out = append(out, cause{key, CauseOutcome, outcome})
	}
	for _, k := range []struct {
		c  Cause
		on bool
	}{{CauseUnhandled, len(m.Unhandled) > 0}, {CauseSwallowedCrash, len(m.Swallowed) > 0}, {CausePanic, len(m.Panics) > 0}, {CauseUnreported, unreported}} {
		if k.on {
			out = append(out, cause{key, k.c, outcome})
		}
	}
	return out
}

// errorCause is the cause of a run that could not be made.
func errorCause(key string, err error) cause {
	if errors.Is(err, sim.ErrPanicked) {
		return cause{key, CausePanic, variant.OK}
	}
	return cause{key, CauseError, variant.OK}
}

// rawCauses runs stage again, without the grader, and returns the causes
// of every failing run it makes.
func rawCauses(g *grader, stage Stage) []cause {
	var out []cause
	switch stage {
	case StageMatrix, StageAssumptions, StagePolled:
		m := g.m
		switch stage {
		case StagePolled:
			m = m.Polled()
		case StageAssumptions:
			m.Points = scenarios.Assumptions()
		}
		for i, p := range m.Points {
			// The matrix's cells are the grader's own, as the simulator
			// gave them; the polled matrix's are run again.
			c, err := sim.Cell{}, error(nil)
			if stage == StageMatrix && i < len(g.out.Cells) && g.out.Cells[i].Runs > 0 {
				c = g.out.Cells[i]
			} else {
				c, err = m.RunCell(g.v, p)
			}
			if err != nil {
				out = append(out, errorCause(p.ID+"/0", err))
				continue
			}
			key := func(ce *sim.RunID) string {
				if ce == nil {
					return p.ID + "/0"
				}
				return fmt.Sprintf("%s/%d", ce.Name(), ce.Relays)
			}
			if !c.OutcomeMatches() {
				out = append(out, cause{key(c.Counterexample), CauseOutcome, c.Outcome})
			}
			out = append(out, causesOf(key(c.MisstepRun), variant.OK, variant.OK, c.Missteps, false)...)
		}
	case StageSweep, StageFailureSweep:
		sw, err := g.m.Sweep(g.v)
		if stage == StageFailureSweep {
			sw, err = g.m.FailureSweep(g.v)
		}
		if err != nil {
			return []cause{errorCause("happy-path/0", err)}
		}
		for _, f := range sw.Failures {
			name := "happy-path"
			if f.Failure != nil {
				name = sim.RunID{Row: f.Row, Failure: f.Failure}.Name()
			} else if len(f.Crashes) > 0 {
				var parts []string
				for _, c := range f.Crashes {
					parts = append(parts, fmt.Sprintf("%s@%d", c.Point, c.Occurrence))
				}
				name = strings.Join(parts, "+")
			}
			out = append(out, causesOf(fmt.Sprintf("%s/%d", name, extraRelays(f.Relays)), f.Outcome, variant.OK, f.Missteps, len(f.Missing) > 0)...)
		}
	case StageExplore:
		for seed := uint64(1); seed <= uint64(g.plan.seeds); seed++ {
			f, err := explore.Explore(g.v, g.plan.runs, seed, explore.Options{})
			if err != nil {
				return []cause{errorCause(fmt.Sprintf("explore:%d", seed), err)}
			}
			if f != nil {
				return causesOf(fmt.Sprintf("explore:%d", seed), f.Result.Outcome, variant.OK, f.Result.Missteps, false)
			}
		}
	}
	return out
}

// replaysBroken plays f's run again and says what is wrong if it does
// not break v's declaration again ("" if it does).
func replaysBroken(v variant.Variant, f Finding) string {
	stageError := f.Cause == CauseError || f.Cause == CausePanic && f.Detail.EN != "" && strings.Contains(f.Detail.EN, sim.ErrPanicked.Error())
	if f.Run.Explore {
		found, err := explore.Explore(v, f.Run.ExploreRuns, f.Run.ExploreSeed, explore.Options{})
		switch {
		case err != nil && !stageError:
			return err.Error()
		case err == nil && found == nil:
			return "no counterexample again"
		}
		return ""
	}
	sc, err := scenarios.FindScenario(f.Run.Name())
	if err != nil {
		return err.Error()
	}
	cfg := sc.Configure(v, f.Run.Seed)
	if f.Run.Relays > 0 {
		cfg.Relays = f.Run.Relays
	}
	cfg.Poll = f.Run.Poll
	res, err := sim.Run(cfg)
	switch {
	case err != nil && stageError:
		return ""
	case err != nil:
		return err.Error()
	case res.Outcome != sc.Expected(v), res.Missteps.Any(), res.CommitFailures > res.Situations[sim.FailureReported]:
		return ""
	}
	return fmt.Sprintf("%s again, as declared (%s), and no misstep", res.Outcome, sc.Expected(v))
}
