package cli

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"

	"outboxlab/internal/report"
	"outboxlab/internal/shard"
	"outboxlab/lab/explore"
	"outboxlab/lab/verdict"
	"outboxlab/lang"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// maxRuns bounds --runs: a billion schedules take days.
const maxRuns = sim.MaxExploreRuns

func runExplore(args []string, stdout io.Writer) error {
	if len(args) > 0 && args[0] == "merge" {
		return runExploreMerge(args[1:], stdout)
	}
	fs := newFlags("explore", "", lang.Text{
		EN: "Random workloads, faults, crashes and interleavings against one variant; the first failures are shrunk to a short counterexample, told as a timeline with the command that replays it. `labrun explore merge FILE...` merges the JSON of --shard runs into the unsharded run's, byte for byte.",
		DE: "Zufällige Arbeitslasten, Störungen, Abstürze und Verzahnungen gegen eine Variante; das erste Scheitern wird zu einem kurzen Gegenbeispiel verkleinert und als Zeitleiste erzählt, mit dem Befehl, der es wiederholt. `labrun explore merge DATEI...` fügt das JSON von --shard-Läufen zu dem des ungeteilten Laufs zusammen, Byte für Byte.",
	}, stdout)
	variantName := fs.required("variant", "V", lang.Textf(lang.Text{EN: "the variant to explore: %s", DE: "die Variante, die erkundet wird: %s"}, strings.Join(scenarios.VariantNames(), ", ")))
	runsText := fs.text("runs", "N", lang.Text{EN: "how many random schedules to try, a whole number >= 1 (default 1000)", DE: "wie viele zufällige Abläufe versucht werden, eine ganze Zahl >= 1 (Standard 1.000)"})
	seedText := fs.text("seed", "N", lang.Text{EN: "the exploration's seed, a whole number >= 0 (default 1)", DE: "der Seed der Exploration, eine ganze Zahl >= 0 (Standard 1)"})
	shardText := fs.text("shard", "I/N", lang.Text{
		EN: "run only shard I of N of the schedules (those whose number is I modulo N), unshrunk, and write what they found as JSON (needs --format json) for labrun explore merge",
		DE: "nur Teil I von N der Abläufe ausführen (die, deren Nummer I modulo N ist), unverkleinert, und als JSON schreiben, was sie fanden (braucht --format json), für labrun explore merge",
	})
	format := fs.formatFlag("text", "json", "html")
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	if *runsText == "" {
		*runsText = "1000"
	}
	if *seedText == "" {
		*seedText = "1"
	}
	if *variantName == "" {
		return usagef(lang.Text{EN: "missing --variant (valid: %s)", DE: "--variant fehlt (gültig: %s)"}, strings.Join(scenarios.VariantNames(), ", "))
	}
	v, err := scenarios.FindMatrixVariant(*variantName)
	if err != nil {
		return usageFrom(err)
	}
	runs64, err := wholeNumber("--runs", *runsText, 1)
	if err != nil {
		return err
	}
	if runs64 > maxRuns {
		return usagef(lang.Text{EN: "--runs %d is too large (at most %d)", DE: "--runs %d ist zu groß (höchstens %d)"}, runs64, maxRuns)
	}
	runs := int(runs64)
	seed, err := wholeNumber("--seed", *seedText, 0)
	if err != nil {
		return err
	}
	if *shardText != "" {
		sh, err := shard.Parse(*shardText)
		if err != nil {
			return usageFrom(err)
		}
		if format.value != "json" {
			return usagef(lang.Text{EN: "--shard writes JSON for labrun explore merge: add --format json", DE: "--shard schreibt JSON für labrun explore merge: --format json hinzufügen"})
		}
		return runExploreShard(stdout, v, runs, seed, sh)
	}
	reached := map[sim.Situation]int{}
	observe := func(res sim.Result) {
		for s, n := range res.Situations {
			if n > 0 {
				reached[s]++ // schedules that reached it
			}
		}
	}
	f, err := explore.Explore(v, runs, seed, explore.Options{Progress: progressLine(runs), Observe: observe})
	if err != nil {
		return err
	}
	return writeExplore(stdout, format.value, v, runs, seed, f, reached)
}

// writeExplore writes an exploration's finding, if any, in format, and
// returns errMismatch when a variant that claims to be correct broke.
func writeExplore(stdout io.Writer, format string, v variant.Variant, runs int, seed uint64, f *explore.BrokenSchedule, reached map[sim.Situation]int) error {
	var err error
	var trace sim.Result
	var d *sim.Divergence // where the replay of the finding parts from it
	if f != nil {
		if trace, d, err = sim.RunTwice(f.Schedule.Config(v)); err != nil {
			return err
		}
		if d == nil {
			d = sim.DivergeVerdicts(f.Result, trace) // the run as the exploration made it
		}
	}
	switch format {
	case "json":
		err = writeExploreJSON(stdout, v.Name, runs, f, trace, reached, d)
	case "html":
		expected := variant.NotApplicable // a mistake declares nothing for a random schedule
		if v.Correct() {
			expected = variant.OK
		}
		err = writeExploreHTML(stdout, v.Name, runs, seed, f, trace, expected, reached)
	default:
		writeExploreText(stdout, v.Name, runs, seed, f, trace, reached)
		if d != nil {
			writeDivergence(stdout, d)
		}
	}
	switch {
	case err != nil:
		return err
	case d != nil && format == "html":
		return divergenceError(d)
	case d != nil || f != nil && v.Correct():
		return errMismatch
	}
	return nil
}

// writeExploreHTML writes the shrunk counterexample as a page, or a page
// that says there was none.
func writeExploreHTML(w io.Writer, variantName string, runs int, seed uint64, f *explore.BrokenSchedule, trace sim.Result, expected variant.Outcome, reached map[sim.Situation]int) error {
	if f == nil {
		// The sentence once, as the page's title, and what the
		// schedules went through, as the text says it.
		situations := bufferFor(w)
		writeSituations(situations, runs, reached)
		return report.WriteArticle(w, strings.TrimSpace(inf(w, lang.Text{EN: "No counterexample for %s in %s random schedules (seed %d).\n", DE: "Kein Gegenbeispiel für %s in %s zufälligen Abläufen (Seed %d).\n"}, variantName, lang.Count(int64(runs)), seed)),
			"<p>"+html.EscapeString(strings.TrimSpace(situations.String()))+"</p>", reportOptions(w))
	}
	return report.WriteRun(w, report.Run{
		ID:         "run",
		Title:      strings.TrimSpace(inf(w, lang.Text{EN: "%s broke in %d of %d random schedule(s) (seed %d); the smallest counterexample: %s\n", DE: "%s scheiterte in %d von %d zufälligen Abläufen (Seed %d); das kleinste Gegenbeispiel: %s\n"}, variantName, f.Found, f.Runs, seed, brokeWith(w, f.Result))),
		Summary:    strings.TrimSpace(inf(w, lang.Text{EN: "Shrunk from %d to %d items:\n", DE: "Verkleinert von %d auf %d Einträge:\n"}, f.Original.Size(), f.Schedule.Size())) + " " + strings.Join(scheduleLines(w, f.Schedule), "; "),
		Outcome:    trace.Outcome,
		Expected:   expected,
		Violations: trace.Violations,
		Replay:     withLang(w, f.Run().Command(programName())+" --format html"),
		Trace:      trace.Trace,
	}, reportOptions(w))
}

// progressLine returns explore's progress callback: a line on stderr when
// it is a terminal (see newProgress), nil otherwise.
func progressLine(total int) func(int) {
	p := newProgress()
	if p == nil {
		return nil
	}
	return func(done int) {
		p.update(done == total, func() string { return fmt.Sprintf("explored %d/%d schedules", done, total) })
	}
}

func writeExploreText(w io.Writer, variantName string, runs int, seed uint64, f *explore.BrokenSchedule, trace sim.Result, reached map[sim.Situation]int) {
	if f == nil {
		fmt.Fprint(w, inf(w, lang.Text{EN: "No counterexample for %s in %s random schedules (seed %d).\n", DE: "Kein Gegenbeispiel für %s in %s zufälligen Abläufen (Seed %d).\n"}, variantName, lang.Count(int64(runs)), seed))
		writeSituations(w, runs, reached)
		return
	}
	fmt.Fprint(w, inf(w, lang.Text{EN: "%s broke in %d of %d random schedule(s) (seed %d); the smallest counterexample: %s\n", DE: "%s scheiterte in %d von %d zufälligen Abläufen (Seed %d); das kleinste Gegenbeispiel: %s\n"}, variantName, f.Found, f.Runs, seed, brokeWith(w, f.Result)))
	fmt.Fprint(w, inf(w, lang.Text{EN: "Shrunk from %d to %d items:\n", DE: "Verkleinert von %d auf %d Einträge:\n"}, f.Original.Size(), f.Schedule.Size()))
	for _, l := range scheduleLines(w, f.Schedule) {
		fmt.Fprintf(w, "  %s\n", l)
	}
	fmt.Fprintln(w, in(w, lang.Text{EN: "\nTimeline of the shrunk schedule:", DE: "\nZeitleiste des verkleinerten Ablaufs:"}))
	for _, s := range trace.Trace {
		fmt.Fprintln(w, s.In(langOf(w)))
	}
	fmt.Fprintln(w, in(w, lang.Text{EN: "\nViolations:", DE: "\nVerletzungen:"}))
	for _, v := range f.Result.Violations {
		fmt.Fprintf(w, "  %s\n", v.In(langOf(w)))
	}
	for _, m := range missteps(w, f.Result.Missteps) {
		fmt.Fprintf(w, "  %s\n", m)
	}
	fmt.Fprint(w, inf(w, lang.Text{EN: "Replay: %s\n", DE: "Wiederholen: %s\n"}, withLang(w, f.Run().Command(programName()))))
	writeSituations(w, f.Runs, reached)
}

// writeSituations says how many of the schedules tried reached each
// situation: what the exploration actually exercised.
func writeSituations(w io.Writer, tried int, reached map[sim.Situation]int) {
	var parts []string
	for _, s := range sim.SortedSituations(reached) {
		parts = append(parts, fmt.Sprintf("%s %s", s.Situation, in(w, lang.Count(int64(s.N)))))
	}
	if len(parts) == 0 {
		parts = []string{in(w, lang.Text{EN: "none", DE: "keine"})}
	}
	fmt.Fprint(w, inf(w, lang.Text{EN: "Situations reached, in how many of the %s schedules: %s\n", DE: "Erreichte Situationen, in wie vielen der %s Abläufe: %s\n"}, lang.Count(int64(tried)), strings.Join(parts, ", ")))
}

func writeExploreJSON(w io.Writer, variantName string, runs int, f *explore.BrokenSchedule, trace sim.Result, reached map[sim.Situation]int, d *sim.Divergence) error {
	type counterexample struct {
		Outcome    string     `json:"outcome"`
		Violations []string   `json:"violations"`
		Unsafe     []string   `json:"unsafe"`
		Unhandled  []string   `json:"unhandled,omitempty"`
		Schedule   []string   `json:"schedule"`
		Steps      []jsonStep `json:"steps"`
		Seed       uint64     `json:"seed"`
		Runs       int        `json:"runs"`
		Replay     string     `json:"replay"`
		// Divergence is where the replay of the shrunk schedule parted
		// from the run the exploration made of it, or from a second
		// replay: it is NONDETERMINISTIC.
		Divergence *jsonDivergence `json:"nondeterministic,omitempty"`
	}
	out := struct {
		Variant        string          `json:"variant"`
		Runs           int             `json:"runs"`
		Situations     map[string]int  `json:"situations"`
		Counterexample *counterexample `json:"counterexample"`
	}{Variant: variantName, Runs: runs, Situations: map[string]int{}}
	for _, s := range sim.SortedSituations(reached) {
		out.Situations[string(s.Situation)] = s.N
	}
	if f != nil {
		ce := &counterexample{Outcome: f.Result.Outcome.String(), Violations: []string{}, Unsafe: []string{},
			Schedule: f.Schedule.Lines(), Steps: jsonSteps(trace), Seed: f.Seed, Runs: f.Runs, Replay: f.Run().Command(programName()),
			Divergence: toJSONDivergence(d)}
		for _, v := range f.Result.Violations {
			ce.Violations = append(ce.Violations, v.String())
		}
		for _, u := range f.Result.Unsafe {
			ce.Unsafe = append(ce.Unsafe, u.EN)
		}
		ce.Unhandled = f.Result.Unhandled
		out.Counterexample = ce
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// brokeWith says how a counterexample broke, in w's language
// (verdict.BrokeWith).
func brokeWith(w io.Writer, res sim.Result) string { return in(w, verdict.BrokeWith(res)) }

// scheduleLines is a shrunk schedule as its reader reads it: in a story
// file's words, the same in both languages (they paste into a story file).
func scheduleLines(_ io.Writer, s explore.Schedule) []string { return s.StoryLines() }
