package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"outboxlab/lang"
	"outboxlab/sim"
	"outboxlab/variant"
)

// A run's name is printed in one place (sim.RunID.Name) and read in one
// place, here (ParseRun): what the name means needs the catalogue (which
// ids are stories, rows or crash points), and the catalogue is this
// package. Find turns a typed run into its scenario (summary, narrative,
// the row that judges it) and Config into its sim.Config, from the run's
// fields alone: nothing is read back from the name.

// ParseRun reads a run's name, as labrun scenario and -lab.replay take
// it: a named scenario of the catalogue (a story, "mistake/V"), a matrix
// row ("broker-outage", "relay.after-send"), a crash point with an
// occurrence ("relay.after-send@2"; any crash point, not only the
// matrix's rows), crashes joined by + (the crash sweep's runs), a failed
// commit under an optional fault row ("commit-failure:relay.claim@2",
// "poison+commit-failure:consumer.count-failure@1": the failure sweep's
// runs), or an exploration's "explore:RUNS:SEED". The run's variant,
// seed, relays and flags are not in its name: the caller sets them.
// sim.RunID.Name prints what ParseRun reads.
func ParseRun(name string) (sim.RunID, error) {
	// Catalogue's scenarios, in its order, without making every
	// mistake's: a grading looks a dozen rows up by name.
	for _, s := range storyFiles() {
		if s.Name != name {
			continue
		}
		if p, err := findRow(name); err == nil && p.Kind == sim.KindFault {
			return sim.RunID{Row: name}, nil // a story named as a row is the row's run (TestAStoryNamedAsARowIsTheRowsRun)
		}
		return sim.RunID{Story: name}, nil
	}
	if strings.HasPrefix(name, mistakePrefix) {
		for _, v := range Variants() {
			if !v.Correct() && mistakePrefix+v.Name == name {
				return sim.RunID{Story: name}, nil
			}
		}
	}
	if rest, ok := strings.CutPrefix(name, sim.ExplorePrefix); ok {
		return parseExplore(rest)
	}
	if strings.Contains(name, sim.FailurePrefix) {
		return parseFailure(name)
	}
	if strings.Contains(name, "+") {
		return parseCrashes(name)
	}
	id, k, err := sim.ParseScenarioPoint(name)
	if err != nil {
		return sim.RunID{}, err
	}
	p, err := findRow(id)
	if err != nil && crashLike(id) {
		return parseCrashes(name) // a crash point that is not a row, as the sweep names them
	}
	if err != nil {
		return sim.RunID{}, unknownScenario(name)
	}
	if p.Kind == sim.KindFault {
		if k != 1 {
			return sim.RunID{}, fmt.Errorf("scenario %q: a fault row has no occurrences", name)
		}
		return sim.RunID{Row: p.ID}, nil
	}
	if !strings.Contains(name, "@") {
		return sim.RunID{Row: p.ID}, nil // the row, named as its cell is: its first occurrence
	}
	return sim.RunID{Crashes: []sim.Crash{{Point: p.ID, Occurrence: k}}}, nil
}

// parseExplore reads an exploration's "RUNS:SEED".
func parseExplore(rest string) (sim.RunID, error) {
	runs, seed, found := strings.Cut(rest, ":")
	n, err1 := strconv.ParseUint(runs, 10, 64)
	s, err2 := strconv.ParseUint(seed, 10, 64)
	if found && err1 == nil && err2 == nil && n > sim.MaxExploreRuns {
		return sim.RunID{}, fmt.Errorf("%s%s:%s: %s runs are too many (at most %d)", sim.ExplorePrefix, runs, seed, runs, sim.MaxExploreRuns)
	}
	if found && err2 == nil && errors.Is(err1, strconv.ErrRange) {
		return sim.RunID{}, fmt.Errorf("%s%s:%s: the runs are too many (at most %d)", sim.ExplorePrefix, runs, seed, sim.MaxExploreRuns)
	}
	if !found || err1 != nil || err2 != nil || n < 1 {
		return sim.RunID{}, fmt.Errorf("want %sRUNS:SEED, e.g. %s300:1", sim.ExplorePrefix, sim.ExplorePrefix)
	}
	return sim.RunID{Explore: true, ExploreRuns: int(n), ExploreSeed: s}, nil
}

// parseCrashes reads "P@K+Q@M": a crash at the K-th time P is reached
// and then at the M-th time Q is reached after it, as the sweep crashes
// twice. Any crash point may be named, not only the matrix's rows.
func parseCrashes(name string) (sim.RunID, error) {
	var planned []sim.Crash
	for _, part := range strings.Split(name, "+") {
		id, k, err := sim.ParseScenarioPoint(part)
		if err != nil {
			return sim.RunID{}, err
		}
		if p, err := findRow(id); !crashLike(id) && err == nil && p.Kind == sim.KindFault {
			return sim.RunID{}, fmt.Errorf("scenario %q: %q is a fault row, and a row combines with a failed commit only (ROW+%sBOUNDARY@K, ROW one of %s); crash points join crash points (P@K+Q@M)", name, id, sim.FailurePrefix, strings.Join(Matrix().FailureRows, ", "))
		}
		if !crashLike(id) {
			return sim.RunID{}, fmt.Errorf("scenario %q: %q is not a crash point of the form process.before-effect or process.after-effect", name, id)
		}
		planned = append(planned, sim.Crash{Point: id, Occurrence: k})
	}
	return sim.RunID{Crashes: planned}, nil
}

// parseFailure reads "[ROW+]commit-failure:BOUNDARY@K[-L]".
func parseFailure(name string) (sim.RunID, error) {
	row, failure, found := strings.Cut(name, "+")
	if !found {
		row, failure = "", name
	}
	if row != "" {
		if p, err := FindPoint(row); err != nil || p.Kind != sim.KindFault {
			return sim.RunID{}, fmt.Errorf("scenario %q: %q is not a fault row; want ROW+%sBOUNDARY@K with one of %s, or %sBOUNDARY@K alone",
				name, row, sim.FailurePrefix, strings.Join(Matrix().FailureRows, ", "), sim.FailurePrefix)
		}
	}
	f, err := sim.ParseFault([]string{string(sim.FaultCommitFailure), strings.TrimPrefix(failure, sim.FailurePrefix)}, known)
	if strings.HasPrefix(failure, sim.FailurePrefix) && errors.Is(err, sim.ErrBurstTooLong) {
		return sim.RunID{}, fmt.Errorf("scenario %q: %w", name, err)
	}
	if !strings.HasPrefix(failure, sim.FailurePrefix) || err != nil {
		return sim.RunID{}, fmt.Errorf("scenario %q: want %sBOUNDARY@K, e.g. %srelay.claim@2 (boundaries: %s), or %sBOUNDARY@K-L, the K-th to the L-th commit in a row",
			name, sim.FailurePrefix, sim.FailurePrefix, strings.Join(CommitBoundaries, ", "), sim.FailurePrefix)
	}
	return sim.RunID{Row: row, Failure: &f}, nil
}

// crashLike reports whether id has the form of a crash point.
func crashLike(id string) bool {
	return strings.Contains(id, ".before-") || strings.Contains(id, ".after-")
}

// findRow returns the matrix row id, or the assumptions row a grading
// plays beside the matrix.
func findRow(id string) (sim.Point, error) {
	p, err := FindPoint(id)
	if a, ok := findAssumption(id); ok && err != nil {
		return a, nil
	}
	return p, err
}

// unknownScenario is the error of a name that is no run.
func unknownScenario(name string) error {
	return lang.Errorf(lang.Text{
		EN: "unknown scenario %q (valid: %s, a matrix point, or any crash point process.before-effect or process.after-effect, with an optional @K, several joined by +, or [ROW+]commit-failure:BOUNDARY@K; see `labrun list`)",
		DE: "unbekanntes Szenario %q (gültig: %s, ein Punkt der Matrix oder jeder Absturzpunkt process.before-effect oder process.after-effect, mit einem optionalen @K, mehrere mit + verbunden, oder [ROW+]commit-failure:BOUNDARY@K; siehe `labrun list`)"},
		name, strings.Join(ScenarioNames(), ", "))
}

// FindScenario resolves a scenario name (see ParseRun; an exploration is
// no scenario): the scenario, named as it was typed.
func FindScenario(name string) (Scenario, error) {
	run, err := ParseRun(name)
	if run.Explore || (err != nil && strings.HasPrefix(name, sim.ExplorePrefix)) {
		return Scenario{}, unknownScenario(name)
	}
	if err != nil {
		return Scenario{}, err
	}
	sc, err := Find(run)
	sc.Name = name
	return sc, err
}

// Find returns the scenario that plays run: its story, or the matrix's
// run it names, with the summary that says what happens and the row that
// judges it. run's variant, seed, relays and flags are not looked at.
func Find(run sim.RunID) (Scenario, error) {
	run = sim.RunID{Story: run.Story, Row: run.Row, Crashes: run.Crashes, Failure: run.Failure, Explore: run.Explore,
		ExploreRuns: run.ExploreRuns, ExploreSeed: run.ExploreSeed}
	switch {
	case run.Explore:
		return Scenario{}, fmt.Errorf("scenarios: %s is an exploration's run: lab/explore makes it", run.Name())
	case run.Story != "":
		for _, s := range storyFiles() {
			if s.Name == run.Story {
				return s, nil
			}
		}
		for _, v := range Variants() {
			if !v.Correct() && mistakePrefix+v.Name == run.Story {
				return mistakeScenario(v), nil
			}
		}
		return Scenario{}, unknownScenario(run.Story)
	case run.Failure != nil:
		return failureScenario(run)
	case len(run.Crashes) == 1:
		if p, err := findRow(run.Crashes[0].Point); err == nil && p.Kind == sim.KindCrash && !run.Crashes[0].ForGood {
			return rowScenario(run, p, run.Crashes[0].Occurrence), nil
		}
		return crashesScenario(run), nil
	case len(run.Crashes) > 1:
		return crashesScenario(run), nil
	}
	for _, s := range storyFiles() {
		if s.Name == run.Row { // the row's run, told as a story
			s.Run = run
			return s, nil
		}
	}
	p, err := findRow(run.Row)
	if err != nil {
		return Scenario{}, unknownScenario(run.Row)
	}
	return rowScenario(run, p, 1), nil
}

// Config returns the configuration that plays run with v: the one
// function that turns a run into a sim.Config, for every door (labrun's
// commands, the grader, a test's -lab.replay, the HTML page, the real
// parts). An exploration's run is lab/explore's to make.
func Config(run sim.RunID, v variant.Variant) (sim.Config, error) {
	sc, err := Find(run)
	if err != nil {
		return sim.Config{}, err
	}
	return sc.Config(v, run), nil
}

// rowScenario is the run of a matrix cell: a crash at the k-th
// occurrence of a crash point, or the faults of a fault row.
func rowScenario(run sim.RunID, p sim.Point, k int) Scenario {
	summary := lang.Textf(lang.Text{
		EN: "the standard workload with a crash at %s, occurrence %d",
		DE: "die Standard-Arbeitslast mit einem Absturz bei %s, Vorkommen %d"}, p.ID, k)
	if p.Kind == sim.KindFault {
		summary = lang.Textf(lang.Text{EN: "the standard workload under the fault %s", DE: "die Standard-Arbeitslast unter der Störung %s"}, p.ID)
		if p.Workload != nil {
			summary = lang.Textf(lang.Text{
				EN: "the row's own workload (%d commands) under the fault %s",
				DE: "die eigene Arbeitslast der Zeile (%d Befehle) unter der Störung %s"}, len(p.Workload), p.ID)
		}
	}
	return Scenario{Name: run.Name(), Summary: summary, Point: p.ID, Seed: MatrixSeed, Run: run, Configure: pointRun(p, k),
		Narrative: p.Story}
}

// crashesScenario is the standard workload with run's crashes, as the
// sweep crashes: judged OK whatever the variant.
func crashesScenario(run sim.RunID) Scenario {
	var words, wordsDE []string
	for _, c := range run.Crashes {
		words = append(words, fmt.Sprintf("%s (occurrence %d)", c.Point, c.Occurrence))
		wordsDE = append(wordsDE, fmt.Sprintf("%s (Vorkommen %d)", c.Point, c.Occurrence))
	}
	planned := slices.Clone(run.Crashes)
	return Scenario{
		Name: run.Name(),
		Summary: lang.Text{
			EN: "the standard workload with crashes at " + strings.Join(words, ", then "),
			DE: "die Standard-Arbeitslast mit Abstürzen bei " + strings.Join(wordsDE, ", dann bei ")},
		Seed: MatrixSeed,
		Run:  run,
		Configure: func(v variant.Variant, seed uint64) sim.Config {
			cfg := sim.DefaultConfig(v, Workload(), seed)
			cfg.Crashes = slices.Clone(planned)
			return cfg
		},
	}
}

// failureScenario is the failure sweep's run of the matrix's workload,
// under a fault row if run has one, in which run's commit fails.
func failureScenario(run sim.RunID) (Scenario, error) {
	var p sim.Point
	if run.Row != "" {
		var err error
		if p, err = FindPoint(run.Row); err != nil || p.Kind != sim.KindFault {
			return Scenario{}, fmt.Errorf("scenario %q: %q is not a fault row (valid: %s)", run.Name(), run.Row, strings.Join(Matrix().FailureRows, ", "))
		}
	}
	f := *run.Failure
	k, boundary := f.Occurrence, f.Point
	if f.Burst > 1 {
		k = f.Occurrence + f.Burst - 1 // named by its last
	}
	summary := lang.Textf(lang.Text{
		EN: "the standard workload; commit %d at %s fails (nothing committed, the process gets an error)",
		DE: "die Standard-Arbeitslast; Commit %d bei %s scheitert (nichts gespeichert, der Prozess bekommt einen Fehler)"}, k, boundary)
	if f.Burst > 1 {
		summary = lang.Textf(lang.Text{
			EN: "the standard workload; commits %d to %d at %s fail, a burst (nothing committed, the process gets an error each time)",
			DE: "die Standard-Arbeitslast; die Commits %d bis %d bei %s scheitern, eine Serie (nichts gespeichert, der Prozess bekommt jedes Mal einen Fehler)"}, f.Occurrence, k, boundary)
	}
	if run.Row != "" {
		summary = lang.Textf(lang.Text{
			EN: "the standard workload under the fault %s; commit %d at %s fails (nothing committed, the process gets an error)",
			DE: "die Standard-Arbeitslast unter der Störung %s; Commit %d bei %s scheitert (nichts gespeichert, der Prozess bekommt einen Fehler)"}, run.Row, k, boundary)
	}
	return Scenario{
		Name:    run.Name(),
		Summary: summary,
		Point:   p.ID,
		Seed:    MatrixSeed,
		Run:     run,
		Configure: func(v variant.Variant, seed uint64) sim.Config {
			cfg := sim.DefaultConfig(v, Workload(), seed) // the matrix's run, as the failure sweep makes it
			p.Apply(&cfg)
			cfg.Faults = append(slices.Clone(cfg.Faults), f)
			return cfg
		},
	}, nil
}

// MustParseRun is ParseRun for a name known to be good (a test's, a
// table's): it panics on an error.
func MustParseRun(name string) sim.RunID {
	run, err := ParseRun(name)
	if err != nil {
		panic(err)
	}
	return run
}
