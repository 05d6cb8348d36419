package scenarios

import (
	"embed"
	"io/fs"
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
	// Run is the run the scenario names, its variant, seed, relays and
	// flags left to who plays it: a story, a row, crashes or a failed
	// commit (see ParseRun).
	Run sim.RunID
	// Configure builds the run for a variant and seed, with the
	// scenario's own relays; Config adds what a RunID changes.
	Configure func(v variant.Variant, seed uint64) sim.Config
}

// Config returns the configuration that plays run with v in this
// scenario: its own at run's seed, with run's relays (if not 0), polled
// if run says so.
// Every door that replays a run builds its configuration here.
func (s Scenario) Config(v variant.Variant, run sim.RunID) sim.Config {
	cfg := s.Configure(v, run.Seed)
	if run.Relays > 0 {
		cfg.Relays = run.Relays
	}
	if run.Poll {
		cfg.Poll = true
	}
	return cfg
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
		Run:       sim.RunID{Story: mistakePrefix + v.Name},
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
			if ce := cell.Counterexample; len(ce.Crashes) > 0 {
				k = ce.Crashes[0].Occurrence
			}
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
