package scenarios

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"outboxlab/domain"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/sim"
	"outboxlab/variant"
)

// Scenario is one named story: a run and a narrative that says what
// happens, what breaks or holds, what to learn, and which chapter passage it
// illustrates.
type Scenario struct {
	Name string
	// Summary says in a line what happens, in English and in German.
	Summary lang.Text
	// Narrative is a few sentences for the learner, in both languages.
	Narrative lang.Text
	// Variant is the variant the scenario runs when none is chosen.
	Variant string
	// Point is the matrix row whose declaration judges the run; "" means
	// the run is expected OK whatever the variant.
	Point string
	// Expect, if not OK, is what the run of the story's own Variant ends
	// with, for a story that shows a mistake at no row of the matrix
	// (another variant is judged by Point).
	Expect variant.Outcome
	// Seed is the seed the scenario runs with when none is chosen
	// (MatrixSeed unless its file says otherwise).
	Seed uint64
	// Configure builds the run for a variant and seed.
	Configure func(v variant.Variant, seed uint64) sim.Config
}

// Expected returns the outcome the scenario expects of v.
func (s Scenario) Expected(v variant.Variant) variant.Outcome {
	if s.Expect != variant.OK && v.Name == s.Variant {
		return s.Expect
	}
	if s.Point == "" {
		return variant.OK
	}
	if p, err := FindPoint(s.Point); err == nil {
		return p.Expected(v)
	}
	return v.Expected(s.Point)
}

// OneOrder is the workload of the short stories: o-1 is placed, then
// amended, so that one message's whole life fits on a screen.
func OneOrder() []sim.Command {
	return []sim.Command{
		{At: 0, Command: orders.Command{Kind: orders.Place, OrderID: "o-1", Amount: domain.MustMoney("10.00", "EUR")}},
		{At: time.Second, Command: orders.Command{Kind: orders.Amend, OrderID: "o-1", Amount: domain.MustMoney("2.50", "EUR"), Text: "gift wrap"}},
	}
}

// crashAt is a scenario run: a workload with one crash.
func crashAt(workload func() []sim.Command, point string, k int) func(variant.Variant, uint64) sim.Config {
	return func(v variant.Variant, seed uint64) sim.Config {
		cfg := sim.DefaultConfig(v, workload(), seed)
		cfg.Crashes = []sim.Crash{{Point: point, Occurrence: k}}
		return cfg
	}
}

// Stories are the named scenarios' files, one story each (see the
// package comment for the format).
//
//go:embed stories/*.txt
var Stories embed.FS

// stories parses the embedded story files once, in file name order.
var stories = sync.OnceValues(func() ([]Scenario, error) {
	entries, err := fs.ReadDir(Stories, "stories")
	if err != nil {
		return nil, err
	}
	var out []Scenario
	for _, e := range entries {
		name := "stories/" + e.Name()
		b, err := fs.ReadFile(Stories, name)
		if err != nil {
			return nil, err
		}
		f, err := ParseFile(name, string(b))
		if err != nil {
			return nil, err
		}
		out = append(out, f.Scenario)
	}
	return out, nil
})

// Catalogue returns the named scenarios: the stories of the course
// chapters (the embedded files, by name), and one scenario per mistake.
// A story file that does not parse is a bug of the build, caught by
// TestCatalogue: Catalogue panics with its file and line.
func Catalogue() []Scenario {
	out := append([]Scenario(nil), storyFiles()...)
	for _, v := range Variants() {
		if !v.Correct() {
			out = append(out, mistakeScenario(v))
		}
	}
	return out
}

// storyFiles returns the stories of the course chapters, by name.
func storyFiles() []Scenario {
	files, err := stories()
	if err != nil {
		panic(err)
	}
	return files
}

// mistakePrefix begins the name of a mistake's scenario.
const mistakePrefix = "mistake/"

// mistakeScenario is the scenario of the mistake v: the standard
// workload at the point its story shows, or its first declared failure.
func mistakeScenario(v variant.Variant) Scenario {
	point := firstDeclaredFailure(v)
	if p, ok := storyPoints[v.Name]; ok {
		point = p
	}
	p, _ := FindPoint(point)
	return Scenario{
		Name:    mistakePrefix + v.Name,
		Summary: lang.Textf(lang.Text{EN: "%s fails at %s: %s", DE: "%s scheitert bei %s: %s"}, v.Name, point, v.Expected(point)),
		Narrative: lang.Textf(lang.Text{EN: "%s %s. Chapter %s.", DE: "%s: %s. Kapitel %s."},
			v.Name, v.Summary, ChapterText(v.Chapter)),
		Variant:   v.Name,
		Point:     point,
		Seed:      MatrixSeed,
		Configure: mistakeRun(v, p),
	}
}

// ChapterText is a variant's Chapter ("000 section 2, 003 \"...\"") in
// both languages; its quotes are the chapters' German already.
func ChapterText(chapter string) lang.Text {
	de := chapterDE.Replace(chapter)
	for strings.Count(de, `"`) >= 2 { // German quotes: „...“
		de = strings.Replace(strings.Replace(de, `"`, "„", 1), `"`, "“", 1)
	}
	return lang.Text{EN: chapter, DE: de}
}

// chapterDE puts a variant's Chapter into German; its quotes already are.
var chapterDE = strings.NewReplacer("sections", "Abschnitte", "section", "Abschnitt", " and ", " und ")

// storyPoints are the rows whose runs tell a mistake's story better than
// its first declared failure, which for these is an accident of the
// seeded interleaving.
var storyPoints = map[string]string{
	"recover-all":        "relay-restart",    // the row built to show it
	"claim-without-lock": "broker-outage",    // after the outage, several messages are due at once
	"mark-before-send":   "relay.after-mark", // the chapter's story: it dies between its mark and its send
}

// mistakeRun is the run of a mistake's story: the matrix's counterexample
// at its first declared failure (the occurrence of the crash, and two
// relays if it took two), played with the seed asked for.
func mistakeRun(mistake variant.Variant, p sim.Point) func(variant.Variant, uint64) sim.Config {
	return func(v variant.Variant, seed uint64) sim.Config {
		k, relays := 1, 0
		if cell, err := Matrix().RunCell(mistake, p); err == nil && cell.Counterexample != nil {
			_, k, _ = sim.ParseScenarioPoint(cell.Counterexample.Scenario)
			relays = cell.Counterexample.Relays
		}
		cfg := pointRun(p, k)(v, seed)
		if relays > 0 && (v.MaxRelays == 0 || relays <= v.MaxRelays) {
			cfg.Relays = relays
		}
		return cfg
	}
}

// firstDeclaredFailure returns the first matrix row at which v declares a
// violation ("" if none: TestCrashMatrix rejects a declaration off the rows).
func firstDeclaredFailure(v variant.Variant) string {
	for _, p := range Points() {
		if v.Expected(p.ID) != variant.OK {
			return p.ID
		}
	}
	return ""
}

// pointRun is the run of a matrix cell: a crash at the k-th occurrence of a
// crash point, or the faults of a fault row.
func pointRun(p sim.Point, k int) func(variant.Variant, uint64) sim.Config {
	if p.Kind == sim.KindFault {
		return func(v variant.Variant, seed uint64) sim.Config {
			cfg := sim.DefaultConfig(v, Workload(), seed)
			p.Apply(&cfg)
			return cfg
		}
	}
	return crashAt(Workload, p.ID, k)
}

// ScenarioNames lists the named scenarios.
func ScenarioNames() []string {
	var names []string
	for _, s := range Catalogue() {
		names = append(names, s.Name)
	}
	return names
}

// crashes is the scenario "P@K+Q@M": the standard workload with a crash
// at the K-th time P is reached and then at the M-th time Q is reached
// after it, as the sweep crashes twice. Any crash point may be named, not
// only the matrix's rows.
func crashes(name string) (Scenario, error) {
	var planned []sim.Crash
	var words, wordsDE []string
	for _, part := range strings.Split(name, "+") {
		id, k, err := sim.ParseScenarioPoint(part)
		if err != nil {
			return Scenario{}, err
		}
		if !strings.Contains(id, ".before-") && !strings.Contains(id, ".after-") {
			return Scenario{}, fmt.Errorf("scenario %q: %q is not a crash point of the form process.before-effect or process.after-effect", name, id)
		}
		planned = append(planned, sim.Crash{Point: id, Occurrence: k})
		words = append(words, fmt.Sprintf("%s (occurrence %d)", id, k))
		wordsDE = append(wordsDE, fmt.Sprintf("%s (Vorkommen %d)", id, k))
	}
	return Scenario{
		Name: name,
		Summary: lang.Text{
			EN: "the standard workload with crashes at " + strings.Join(words, ", then "),
			DE: "die Standard-Arbeitslast mit Abstürzen bei " + strings.Join(wordsDE, ", dann bei ")},
		Seed: MatrixSeed,
		Configure: func(v variant.Variant, seed uint64) sim.Config {
			cfg := sim.DefaultConfig(v, Workload(), seed)
			cfg.Crashes = planned
			return cfg
		},
	}, nil
}

// FailurePrefix starts the name of a failure sweep's run:
// "commit-failure:relay.claim@2", the second commit at relay.claim fails;
// "commit-failure:consumer.commit@2-4", the second to the fourth (a
// burst); under a fault row, the row comes first:
// "broker-outage+commit-failure:relay.mark@3".
const FailurePrefix = "commit-failure:"

// FailureName names the failure sweep's run in which the commit f fails,
// under the fault row row ("" for the workload alone).
func FailureName(row string, f sim.Fault) string {
	name := FailurePrefix + strings.TrimPrefix(f.String(), string(sim.FaultCommitFailure)+" ")
	if row != "" {
		name = row + "+" + name
	}
	return name
}

// commitFailure is the failure sweep's run of the matrix's workload, under
// a fault row if the name starts with one, in which the commit at
// boundary@k fails.
func commitFailure(name string) (Scenario, error) {
	row, failure, found := strings.Cut(name, "+")
	if !found {
		row, failure = "", name
	}
	var p sim.Point
	if row != "" {
		var err error
		p, err = FindPoint(row)
		if err != nil || p.Kind != sim.KindFault {
			return Scenario{}, fmt.Errorf("scenario %q: %q is not a fault row; want ROW+%sBOUNDARY@K with one of %s, or %sBOUNDARY@K alone",
				name, row, FailurePrefix, strings.Join(Matrix().FailureRows, ", "), FailurePrefix)
		}
	}
	f, err := sim.ParseFault([]string{string(sim.FaultCommitFailure), strings.TrimPrefix(failure, FailurePrefix)}, known)
	if !strings.HasPrefix(failure, FailurePrefix) || err != nil {
		return Scenario{}, fmt.Errorf("scenario %q: want %sBOUNDARY@K, e.g. %srelay.claim@2 (boundaries: %s), or %sBOUNDARY@K-L, the K-th to the L-th commit in a row",
			name, FailurePrefix, FailurePrefix, strings.Join(CommitBoundaries, ", "), FailurePrefix)
	}
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
	if row != "" {
		summary = lang.Textf(lang.Text{
			EN: "the standard workload under the fault %s; commit %d at %s fails (nothing committed, the process gets an error)",
			DE: "die Standard-Arbeitslast unter der Störung %s; Commit %d bei %s scheitert (nichts gespeichert, der Prozess bekommt einen Fehler)"}, row, k, boundary)
	}
	return Scenario{
		Name:    name,
		Summary: summary,
		Point:   p.ID,
		Seed:    MatrixSeed,
		Configure: func(v variant.Variant, seed uint64) sim.Config {
			cfg := sim.DefaultConfig(v, Workload(), seed) // the matrix's run, as the failure sweep makes it
			p.Apply(&cfg)
			cfg.Faults = append(slices.Clone(cfg.Faults), f)
			return cfg
		},
	}, nil
}

// FindScenario resolves a scenario name: a named scenario of the catalogue,
// a matrix point with an optional occurrence ("relay.after-send@2"),
// crashes joined by + (the crash sweep's runs), or a failed commit
// ("commit-failure:relay.claim@2", "poison+commit-failure:consumer.count-failure@1":
// the failure sweep's runs).
func FindScenario(name string) (Scenario, error) {
	// Catalogue's scenarios, in its order, without making every
	// mistake's: a grading looks a dozen rows up by name.
	for _, s := range storyFiles() {
		if s.Name == name {
			return s, nil
		}
	}
	if strings.HasPrefix(name, mistakePrefix) {
		for _, v := range Variants() {
			if !v.Correct() && mistakePrefix+v.Name == name {
				return mistakeScenario(v), nil
			}
		}
	}
	if strings.Contains(name, FailurePrefix) {
		return commitFailure(name)
	}
	if strings.Contains(name, "+") {
		return crashes(name)
	}
	id, k, err := sim.ParseScenarioPoint(name)
	if err != nil {
		return Scenario{}, err
	}
	p, err := FindPoint(id)
	if a, ok := findAssumption(id); ok && err != nil {
		p, err = a, nil // a row a grading plays beside the matrix
	}
	if err != nil && (strings.Contains(id, ".before-") || strings.Contains(id, ".after-")) {
		return crashes(name) // a crash point that is not a row, as the sweep names them
	}
	if err != nil {
		return Scenario{}, lang.Errorf(lang.Text{
			EN: "unknown scenario %q (valid: %s, a matrix point, or any crash point process.before-effect or process.after-effect, with an optional @K, several joined by +, or [ROW+]commit-failure:BOUNDARY@K; see `labrun list`)",
			DE: "unbekanntes Szenario %q (gültig: %s, ein Punkt der Matrix oder jeder Absturzpunkt process.before-effect oder process.after-effect, mit einem optionalen @K, mehrere mit + verbunden, oder [ROW+]commit-failure:BOUNDARY@K; siehe `labrun list`)"},
			name, strings.Join(ScenarioNames(), ", "))
	}
	summary := lang.Textf(lang.Text{
		EN: "the standard workload with a crash at %s, occurrence %d",
		DE: "die Standard-Arbeitslast mit einem Absturz bei %s, Vorkommen %d"}, p.ID, k)
	if p.Kind == sim.KindFault {
		if k != 1 {
			return Scenario{}, fmt.Errorf("scenario %q: a fault row has no occurrences", name)
		}
		summary = lang.Textf(lang.Text{EN: "the standard workload under the fault %s", DE: "die Standard-Arbeitslast unter der Störung %s"}, p.ID)
		if p.Workload != nil {
			summary = lang.Textf(lang.Text{
				EN: "the row's own workload (%d commands) under the fault %s",
				DE: "die eigene Arbeitslast der Zeile (%d Befehle) unter der Störung %s"}, len(p.Workload), p.ID)
		}
	}
	return Scenario{Name: name, Summary: summary, Point: p.ID, Seed: MatrixSeed, Configure: pointRun(p, k),
		Narrative: p.Story}, nil
}
