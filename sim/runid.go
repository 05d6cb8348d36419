package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// RunID is everything that identifies one run, typed: which variant,
// which story or matrix row, which crashes and commit failures, how many
// relays, whether they are polled, the seed, an exploration's schedule,
// and the policy flags labrun changed. The matrix, the sweeps, the
// grader and exploration make one; every door (labrun's commands, the
// test log's -lab.replay, the HTML page, the mutation history, the real
// parts' explanations) takes it as it is, and nothing reads it back from
// its name.
//
// It lives here, under the catalogue, because the simulator's matrix and
// sweeps make runs and know no catalogue: the value and its printing
// need nothing above sim. What needs the catalogue is above it, in
// package scenarios: parsing a name (which ids are rows, stories or crash
// points; scenarios.ParseRun) and building a run's Config from its row or
// story (scenarios.Config).
type RunID struct {
	// Variant is the name of the variant that runs.
	Variant string
	// Story names a story of the catalogue ("happy-path",
	// "mistake/dual-write"); File, a story file played instead (labrun
	// scenario --file F). Neither for a run of the matrix, a sweep or
	// the failure sweep.
	Story, File string
	// Row is the fault row whose faults the run has, or a crash point's
	// row named alone ("relay.after-send", its first occurrence). A run
	// with Crashes has no Row: "relay.after-send@2" is its crash, whether
	// or not the point is a row (scenarios.Find looks that up).
	Row string
	// Crashes are the planned crashes, in order (Config.Crashes).
	Crashes []Crash
	// Failure is the failed commit of a failure sweep's run, under Row's
	// faults if Row is a fault row.
	Failure *Fault
	// Seed is the run's seed, Relays how many relays it runs when not
	// the story's or row's own (0), Poll whether the relays are polled as
	// their production loop polls them (Config.Poll).
	Seed   uint64
	Relays int
	Poll   bool
	// Explore says the run is an exploration's: ExploreRuns random
	// schedules from ExploreSeed find it again.
	Explore     bool
	ExploreRuns int
	ExploreSeed uint64
	// Schedule says what happens in the run (crashes, faults, the shrunk
	// schedule), for the reader; Faults are the kinds of fault an
	// exploration's shrunk schedule has, for a hint that follows its
	// cause.
	Schedule []string
	Faults   []FaultKind
	// Flags are labrun flags the run needs beyond these, as they are
	// typed (" --max-attempts 3" for a relay whose policy labrun
	// changed); "" for none.
	Flags string
}

// FailurePrefix starts the name of a failure sweep's run:
// "commit-failure:relay.claim@2", the second commit at relay.claim fails;
// "commit-failure:consumer.commit@2-4", the second to the fourth (a
// burst); under a fault row, the row comes first:
// "broker-outage+commit-failure:relay.mark@3".
const FailurePrefix = "commit-failure:"

// ExplorePrefix starts the name of an exploration's run as a test's
// -lab.replay flag names it: "explore:RUNS:SEED".
const ExplorePrefix = "explore:"

// MaxExploreRuns bounds an exploration's schedules, as labrun explore
// --runs and a replayed exploration's RUNS take them: a billion
// schedules take days.
const MaxExploreRuns = 1_000_000_000

// Name is the run's name as labrun scenario and -lab.replay take it:
// "relay.after-send@2", "P@1+Q@1", "poison+commit-failure:relay.mark@1",
// a row ("broker-outage"), a story ("happy-path"), or an exploration's
// "explore:RUNS:SEED". scenarios.ParseRun reads it back.
func (r RunID) Name() string {
	switch {
	case r.Explore:
		return fmt.Sprintf("%s%d:%d", ExplorePrefix, r.ExploreRuns, r.ExploreSeed)
	case r.Story != "":
		return r.Story
	case r.File != "":
		return r.File
	case r.Failure != nil:
		name := FailurePrefix + strings.TrimPrefix(r.Failure.String(), string(FaultCommitFailure)+" ")
		if r.Row != "" {
			name = r.Row + "+" + name
		}
		return name
	case len(r.Crashes) > 0:
		parts := make([]string, len(r.Crashes))
		for i, c := range r.Crashes {
			parts[i] = fmt.Sprintf("%s@%d", c.Point, c.Occurrence)
		}
		return strings.Join(parts, "+")
	}
	return r.Row
}

// Command returns the labrun command that replays the run; program runs
// labrun ("go run ./cmd/labrun", or a course's own). The policy flags
// come before --relays and --poll, as labrun scenario printed them (the
// matrix's counterexamples printed them last; none of its cells had
// both).
func (r RunID) Command(program string) string {
	if r.Explore {
		return fmt.Sprintf("%s explore --variant %s --runs %d --seed %d", program, r.Variant, r.ExploreRuns, r.ExploreSeed)
	}
	what := r.Name()
	if r.File != "" {
		what = "--file " + r.File
	}
	more := ""
	if r.Relays > 0 {
		more = fmt.Sprintf(" --relays %d", r.Relays)
	}
	if r.Poll {
		more += " --poll"
	}
	return fmt.Sprintf("%s scenario %s --variant %s --seed %d%s%s", program, what, r.Variant, r.Seed, r.Flags, more)
}

// TestFlags returns the flags that replay the run in a test that grades
// with package grade: "-lab.replay=relay.after-send@2 -lab.relays=2".
func (r RunID) TestFlags() string {
	flags := "-lab.replay=" + r.Name()
	if r.Relays > 0 {
		flags += " -lab.relays=" + strconv.Itoa(r.Relays)
	}
	if r.Poll {
		flags += " -lab.poll"
	}
	return flags
}

// ParseScenarioPoint splits a crash's name "point@k" (as Name prints
// each of a run's crashes) into the point id and occurrence; a name
// without "@k" has occurrence 1. scenarios.ParseRun reads a whole name
// with it; story files' crash commands and labrun-real's --point too.
func ParseScenarioPoint(name string) (string, int, error) {
	id, k, found := strings.Cut(name, "@")
	if !found {
		return id, 1, nil
	}
	var n int
	if _, err := fmt.Sscanf(k, "%d", &n); err != nil || n < 1 || fmt.Sprint(n) != k {
		return "", 0, fmt.Errorf("scenario %q: occurrence %q is not a whole number >= 1", name, k)
	}
	return id, n, nil
}
