package grade

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"outboxlab/lab/check"
	"outboxlab/lab/explore"
	"outboxlab/lab/variant"
	"outboxlab/scenarios"
	"outboxlab/sim"
)

// The flags a replay command sets.
var (
	replay   = flag.String("lab.replay", "", "replay one run of the graded variant as a timeline: a scenario (relay.after-send@2, P@1+Q@1, a story), [ROW+]commit-failure:BOUNDARY@K or explore:RUNS:SEED")
	relays   = flag.Int("lab.relays", 0, "with -lab.replay: how many relays run (default: the scenario's own)")
	exercise = flag.Bool("exercise", false, "grade an exercise (its starter fails until it is solved)")
	lang     = flag.String("lab.lang", "", "the language of failures and hints: en or de (default: de when LANG or LC_ALL starts with de, else en)")
)

// german reports whether failures and hints are printed in German: as
// -lab.lang says, else as the environment does.
func german() (bool, error) {
	switch *lang {
	case "de":
		return true, nil
	case "en":
		return false, nil
	case "":
		for _, v := range []string{os.Getenv("LC_ALL"), os.Getenv("LANG")} {
			if v != "" {
				return strings.HasPrefix(v, "de"), nil
			}
		}
		return false, nil
	}
	return false, fmt.Errorf("-lab.lang=%s: want en or de", *lang)
}

// A Hint says what to look at when a variant fails with an outcome, in
// English and in German.
type Hint struct{ EN, DE string }

// Exercise grades an exercise's variant with Grade when the test runs with
// -exercise, and skips otherwise, so that go test ./... stays green while
// an exercise is unsolved. hints say per outcome what to look at.
func Exercise(t testing.TB, v variant.Variant, hints map[check.Outcome]Hint) {
	t.Helper()
	if !*exercise {
		t.Skip("grade the exercise with -exercise")
	}
	Grade(t, v, Options{Hints: hints, Flags: "-exercise"})
}

// maxSweep bounds the sweep failures Report lists.
const maxSweep = 5

// Runs is how many random schedules Report explores for a variant that
// claims to be correct.
const Runs = 300

// unhandledWhy says, after an error a relay or consumer returned, why the
// lab counts it against the variant; unhandledWhyDE says it in German.
const (
	unhandledWhy   = ": an error the process should have handled itself (Relay.Run stops at a step's error: only a failed commit is the caller's business; a broker's error, a race another relay won, a lease it took over are the process's own)"
	unhandledWhyDE = ": ein Fehler, den der Prozess selbst hätte behandeln müssen (Relay.Run hört beim Fehler eines Schritts auf: nur ein gescheiterter Commit geht den Aufrufer an; ein Fehler des Brokers, ein verlorener Wettlauf, eine übernommene Lease sind Sache des Prozesses)"
)

// replayFlags are the test flags that replay a counterexample.
func replayFlags(c sim.Counterexample) string {
	flags := "-lab.replay=" + c.Scenario
	if c.Relays > 0 {
		flags += " -lab.relays=" + strconv.Itoa(c.Relays)
	}
	return flags
}

// Failure is one way the variant failed, with the flags that replay it.
type Failure struct {
	// Outcome is the worst outcome of the failing run.
	Outcome check.Outcome
	// Line says what failed, in one line; LineDE says it in German.
	Line, LineDE string
	// Replay are the test flags that replay it (-lab.replay=...).
	Replay string
}

// Report grades v: every matrix cell against v's declaration, and for a
// variant that claims to be correct, the sweep and Runs random schedules.
// It returns every failure; none means v passed.
func Report(v variant.Variant) ([]Failure, error) {
	if err := v.Validate(); err != nil {
		return nil, err
	}
	var out []Failure
	seen := map[string]bool{} // relays, point, outcome of what is listed
	m := scenarios.Matrix()
	for _, p := range m.Points {
		c, err := m.RunCell(v, p)
		if err != nil {
			return nil, fmt.Errorf("grade %s at %s: %w", v.Name, p.ID, err)
		}
		if c.Matches() {
			continue
		}
		f := Failure{
			Line:   fmt.Sprintf("%s at %s: %s, but %s declares %s", v.Name, p.ID, c.Outcome, v.Name, c.Expected),
			LineDE: fmt.Sprintf("%s bei %s: %s, %s erwartet aber %s", v.Name, p.ID, c.Outcome, v.Name, c.Expected),
		}
		f.Outcome = c.Outcome
		if len(c.Unhandled) > 0 {
			if c.OutcomeMatches() {
				f.Line = fmt.Sprintf("%s at %s: %s as declared", v.Name, p.ID, c.Outcome)
				f.LineDE = fmt.Sprintf("%s bei %s: %s wie erwartet", v.Name, p.ID, c.Outcome)
			}
			f.Line += ", but " + c.Unhandled[0] + unhandledWhy
			f.LineDE += ", aber " + c.Unhandled[0] + unhandledWhyDE
			f.Replay = replayFlags(*c.MisstepRun)
		}
		if c.Counterexample != nil && (len(c.Unhandled) == 0 || !c.OutcomeMatches()) {
			if len(c.Violations) > 0 {
				f.Line += " (" + c.Violations[0].String() + ")"
				f.LineDE += " (" + c.Violations[0].String() + ")"
			}
			f.Replay = replayFlags(*c.Counterexample)
			seen[fmt.Sprint(max(c.Counterexample.Relays, 1), p.ID, c.Outcome)] = true
		}
		out = append(out, f)
	}
	if !v.Correct() {
		return out, nil
	}
	sw, err := m.Sweep(v)
	if err != nil {
		return nil, fmt.Errorf("grade %s: sweep: %w", v.Name, err)
	}
	// Of the sweep's failures, single crashes first, and of those that end
	// at the same point with the same relays and outcome only the first;
	// none that the matrix reported already or whose first crash alone
	// fails the same way.
	failures := slices.Clone(sw.Failures)
	slices.SortStableFunc(failures, func(a, b sim.SweepFailure) int { return len(a.Crashes) - len(b.Crashes) })
	shown := 0
	for _, f := range failures {
		parts, points := []string{"happy-path"}, []string{"happy-path"} // the sweep's run without a crash
		if len(f.Crashes) > 0 {
			parts, points = nil, nil
		}
		for _, c := range f.Crashes {
			parts = append(parts, fmt.Sprintf("%s@%d", c.Point, c.Occurrence))
			points = append(points, c.Point)
		}
		first := fmt.Sprint(f.Relays, points[0], f.Outcome)
		key := fmt.Sprint(f.Relays, points[len(points)-1], f.Outcome)
		relayFlag := ""
		if f.Relays > 1 {
			relayFlag = fmt.Sprintf(" -lab.relays=%d", f.Relays)
		}
		replay := "-lab.replay=" + strings.Join(parts, "+") + relayFlag
		if seen[key] || seen[first] || shown == maxSweep {
			continue
		}
		seen[key] = true
		shown++
		line := fmt.Sprintf("%s after a crash at %s: %s", v.Name, strings.Join(parts, ", then at "), f.Outcome)
		lineDE := fmt.Sprintf("%s nach einem Absturz bei %s: %s", v.Name, strings.Join(parts, ", dann bei "), f.Outcome)
		if f.Relays > 1 {
			line = fmt.Sprintf("%s, %d relays, after a crash at %s: %s", v.Name, f.Relays, strings.Join(parts, ", then at "), f.Outcome)
			lineDE = fmt.Sprintf("%s, %d Relays, nach einem Absturz bei %s: %s", v.Name, f.Relays, strings.Join(parts, ", dann bei "), f.Outcome)
		}
		if len(f.Violations) > 0 {
			line += " (" + f.Violations[0].String() + ")"
			lineDE += " (" + f.Violations[0].String() + ")"
		}
		out = append(out, Failure{Outcome: f.Outcome, Line: line, LineDE: lineDE, Replay: replay})
	}
	fs, err := m.FailureSweep(v)
	if err != nil {
		return nil, fmt.Errorf("grade %s: failure sweep: %w", v.Name, err)
	}
	shown = 0
	for _, f := range fs.Failures {
		key := fmt.Sprint(f.Relays, f.Row, f.Failure.Point, f.Outcome, f.Missing)
		if seen[key] || shown == maxSweep {
			continue
		}
		seen[key] = true
		shown++
		at := fmt.Sprintf("%s@%d", f.Failure.Point, f.Failure.Occurrence)
		replay := "-lab.replay=" + scenarios.FailureName(f.Row, *f.Failure)
		line := fmt.Sprintf("%s when commit %s fails (nothing committed, the process gets an error): %s", v.Name, at, f.Outcome)
		lineDE := fmt.Sprintf("%s, wenn der Commit %s scheitert (nichts gespeichert, der Prozess bekommt einen Fehler): %s", v.Name, at, f.Outcome)
		if f.Row != "" {
			line = fmt.Sprintf("%s when commit %s fails under %s (nothing committed, the process gets an error): %s", v.Name, at, f.Row, f.Outcome)
			lineDE = fmt.Sprintf("%s, wenn der Commit %s unter %s scheitert (nichts gespeichert, der Prozess bekommt einen Fehler): %s", v.Name, at, f.Row, f.Outcome)
		}
		if f.Relays > 1 {
			replay += fmt.Sprintf(" -lab.relays=%d", f.Relays)
			line += fmt.Sprintf(" (%d relays)", f.Relays)
			lineDE += fmt.Sprintf(" (%d Relays)", f.Relays)
		}
		if len(f.Violations) > 0 {
			line += " (" + f.Violations[0].String() + ")"
			lineDE += " (" + f.Violations[0].String() + ")"
		}
		if slices.Contains(f.Missing, sim.FailureReported) {
			line += ", but the error never came back from the step, the delivery or the command that made the commit: the process went on as if it had committed (never reached " + string(sim.FailureReported) + ")"
			lineDE += ", aber der Fehler kam nie aus dem Schritt, der Zustellung oder dem Befehl zurück, der den Commit machte: der Prozess machte weiter, als wäre gespeichert (nie erreicht: " + string(sim.FailureReported) + ")"
		}
		if len(f.Unhandled) > 0 {
			line += ", but " + f.Unhandled[0] + unhandledWhy
			lineDE += ", aber " + f.Unhandled[0] + unhandledWhyDE
		}
		out = append(out, Failure{Outcome: f.Outcome, Line: line, LineDE: lineDE, Replay: replay})
	}
	found, err := explore.Explore(v, Runs, 1, explore.Options{})
	if err != nil {
		return nil, fmt.Errorf("grade %s: explore: %w", v.Name, err)
	}
	if found != nil {
		f := Failure{
			Outcome: found.Result.Outcome,
			Line:    fmt.Sprintf("%s broke in %d of %d random schedules: %s (%s)", v.Name, found.Found, found.Runs, found.Result.Outcome, strings.Join(found.Schedule.Lines(), "; ")),
			LineDE:  fmt.Sprintf("%s scheiterte in %d von %d zufälligen Abläufen: %s (%s)", v.Name, found.Found, found.Runs, found.Result.Outcome, strings.Join(found.Schedule.Lines(), "; ")),
			Replay:  fmt.Sprintf("-lab.replay=explore:%d:%d", found.Runs, found.Seed),
		}
		if u := found.Result.Unhandled; len(u) > 0 {
			f.Line += ", and " + u[0] + unhandledWhy
			f.LineDE += ", und " + u[0] + unhandledWhyDE
		}
		out = append(out, f)
	}
	return out, nil
}

// Variant grades v in a test: with -lab.replay it plays that one run as a
// timeline in the test's log and fails if its outcome is not what v
// declares; without, it fails the test with one line per failure of
// Report, each naming the command that replays it.
func Variant(t testing.TB, v variant.Variant) {
	t.Helper()
	Grade(t, v, Options{})
}

// Options refine what Grade prints.
type Options struct {
	// Hints say, per outcome, what to look at; printed under a failure.
	Hints map[check.Outcome]Hint
	// Flags are added to every replay command, e.g. "-exercise".
	Flags string
}

// Grade is Variant with hints and extra flags.
func Grade(t testing.TB, v variant.Variant, opts Options) {
	t.Helper()
	if *replay != "" {
		if err := Replay(t, v, *replay, *relays); err != nil {
			t.Fatal(err)
		}
		return
	}
	de, err := german()
	if err != nil {
		t.Fatal(err)
	}
	failures, err := Report(v)
	if err != nil {
		t.Fatal(err)
	}
	hint, replayWord := "hint", "replay"
	if de {
		hint, replayWord = "Hinweis", "wiederholen"
	}
	command := fmt.Sprintf("go test %s -run '^%s$'", callerDir(), t.Name())
	if opts.Flags != "" {
		command += " " + opts.Flags
	}
	for _, f := range failures {
		msg, h := f.Line, opts.Hints[f.Outcome].EN
		if de {
			msg, h = f.LineDE, opts.Hints[f.Outcome].DE
		}
		if h != "" {
			msg += "\n    " + hint + ": " + h
		}
		if f.Replay != "" {
			msg += "\n    " + replayWord + ": " + command + " " + f.Replay
		}
		t.Errorf("%s", msg)
	}
}

// Replay plays one run of v, named as -lab.replay names it, logs its
// timeline and returns an error if its outcome is not what v declares.
func Replay(t testing.TB, v variant.Variant, name string, relays int) error {
	t.Helper()
	if rest, ok := strings.CutPrefix(name, "explore:"); ok {
		runs, seed, found := strings.Cut(rest, ":")
		n, err1 := strconv.Atoi(runs)
		s, err2 := strconv.ParseUint(seed, 10, 64)
		if !found || err1 != nil || err2 != nil || n < 1 {
			return fmt.Errorf("-lab.replay=%s: want explore:RUNS:SEED, e.g. explore:300:1", name)
		}
		f, err := explore.Explore(v, n, s, explore.Options{})
		if err != nil || f == nil {
			return fmt.Errorf("-lab.replay=%s: %v: no counterexample in %d schedules", name, err, n)
		}
		cfg := f.Schedule.Config(v)
		cfg.Trace = true
		return logRun(t, cfg, check.OK, strings.Join(f.Schedule.Lines(), "\n"))
	}
	sc, err := scenarios.FindScenario(name)
	if err != nil {
		return fmt.Errorf("-lab.replay=%s: %w", name, err)
	}
	cfg := sc.Configure(v, sc.Seed)
	if relays > 0 {
		cfg.Relays = relays
	}
	return logRun(t, cfg, sc.Expected(v), sc.Summary)
}

// logRun runs cfg and logs its timeline; an outcome other than want is an
// error.
func logRun(t testing.TB, cfg sim.Config, want check.Outcome, title string) error {
	t.Helper()
	res, err := sim.Run(cfg)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", title)
	for _, e := range res.Trace {
		fmt.Fprintln(&b, e)
	}
	fmt.Fprintf(&b, "\nOutcome: %s (declared %s)\n", res.Outcome, want)
	for _, v := range res.Violations {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	if res.CommitFailures > res.Situations[sim.FailureReported] {
		fmt.Fprintf(&b, "  a failed commit never came back as an error: the process went on as if it had committed (never reached %s)\n", sim.FailureReported)
	}
	for _, u := range res.Unhandled {
		fmt.Fprintf(&b, "  %s: an error the process should have handled itself\n", u)
	}
	t.Log(b.String())
	if res.Outcome != want {
		return fmt.Errorf("%s, declared %s", res.Outcome, want)
	}
	if res.CommitFailures > res.Situations[sim.FailureReported] {
		return fmt.Errorf("%s, declared %s, but a failed commit never came back as an error (never reached %s)", res.Outcome, want, sim.FailureReported)
	}
	if len(res.Unhandled) > 0 {
		return fmt.Errorf("%s, declared %s, but %s: an error the process should have handled itself", res.Outcome, want, res.Unhandled[0])
	}
	return nil
}

// callerDir returns the package directory of the test that called
// Variant or Grade, as go test names it from the module's root ("./mine").
func callerDir() string {
	file := ""
	for skip := 1; ; skip++ {
		_, f, _, ok := runtime.Caller(skip)
		if !ok {
			return "."
		}
		if strings.HasSuffix(f, "_test.go") {
			file = f
			break
		}
	}
	dir := filepath.Dir(file)
	for root := dir; ; root = filepath.Dir(root) {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			rel, err := filepath.Rel(root, dir)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		if filepath.Dir(root) == root {
			return "."
		}
	}
}
