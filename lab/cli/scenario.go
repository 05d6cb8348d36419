package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"outboxlab/internal/report"
	"outboxlab/lab/verdict"
	"outboxlab/lang"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

func runScenario(args []string, stdout io.Writer) error {
	fs, opt := scenarioFlags(stdout)
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	sc, err := pickScenario(*opt.file, rest)
	if err != nil {
		return err
	}
	r, err := planScenario(sc, opt)
	if err != nil {
		return err
	}
	res, d, err := sim.RunTwice(r.cfg)
	if err != nil {
		return err
	}
	if missed, ok := res.Missed(r.cfg); ok {
		return usagef(lang.Text{EN: "the planned crash %s@%d never fired: with variant %s and seed %d the run reaches %s %d time(s)%s", DE: "der geplante Absturz %s@%d kam nie: mit Variante %s und Seed %d erreicht der Lauf %s %d-mal%s"},
			missed.Point, missed.Occurrence, r.v.Name, r.seed, missed.Point, res.Reached[missed.Point], res.NeverReached(missed.Point))
	}
	if err := writeScenario(stdout, sc, r, res, d, opt.format.value); err != nil {
		return err
	}
	switch {
	case d != nil && (opt.format.value == "text" || opt.format.value == "json"):
		return errMismatch
	case d != nil:
		return divergenceError(d)
	}
	if res.Outcome != sc.Expected(r.v) || res.Missteps.Any() || res.CommitFailures > res.Situations[sim.FailureReported] {
		return errMismatch
	}
	return nil
}

// scenarioRun is a scenario's run as its flags make it: the variant, the
// seed, the simulator's configuration, the command that replays it and
// the metrics view's alert.
type scenarioRun struct {
	v      variant.Variant
	seed   uint64
	cfg    sim.Config
	replay string
	alert  time.Duration
	// tuned says labrun's flags changed the relay's policy.
	tuned bool
	// storyRelays is how many relays the story runs, which its narration
	// tells; --relays may run another number.
	storyRelays int
}

// planScenario reads the scenario command's flags for sc.
func planScenario(sc scenarios.Scenario, opt scenarioOptions) (scenarioRun, error) {
	r := scenarioRun{seed: sc.Seed}
	var err error
	if *opt.seed != "" {
		if r.seed, err = wholeNumber("--seed", *opt.seed, 0); err != nil {
			return r, err
		}
	}
	if r.v, err = scenarioVariant(sc, *opt.variant); err != nil {
		return r, err
	}
	settings, err := opt.relay.settings()
	if err != nil {
		return r, err
	}
	var flags string
	if r.v, flags, err = withRelaySettings(r.v, settings); err != nil {
		return r, err
	}
	r.tuned = flags != ""
	run := sc.Run
	if *opt.file != "" {
		run = sim.RunID{File: *opt.file}
	}
	run.Variant, run.Seed, run.Flags, run.Poll = r.v.Name, r.seed, flags, *opt.poll
	r.cfg = sc.Config(r.v, run)
	r.storyRelays = r.cfg.Relays // the story's own, which its narration tells
	if *opt.relays != "" {
		if run.Relays, err = relaysFlag(*opt.relays, r.v); err != nil {
			return r, err
		}
		r.cfg.Relays = run.Relays // as Scenario.Config sets them: not worth a second build of a mistake's run
	}
	r.replay = run.Command(programName())
	if r.alert, err = alertFlag(*opt.alert, opt.format.value); err != nil {
		return r, err
	}
	return r, nil
}

// scenarioVariant is the variant --variant names (default: the
// scenario's own, else outbox), if it can play sc.
func scenarioVariant(sc scenarios.Scenario, name string) (variant.Variant, error) {
	switch {
	case name == "" && sc.Variant != "":
		name = sc.Variant
	case name == "":
		name = "outbox"
	}
	v, err := scenarios.FindVariant(name)
	if err != nil {
		return v, usageFrom(err)
	}
	return v, sameStory(sc, v)
}

// writeScenario prints a scenario's run in format, and where a second run
// of it parted from it (d, nil when it did not).
func writeScenario(stdout io.Writer, sc scenarios.Scenario, r scenarioRun, res sim.Result, d *sim.Divergence, format string) error {
	expected := sc.Expected(r.v)
	switch format {
	case "json":
		return writeScenarioJSON(stdout, sc, r.v.Name, r.seed, expected, res, r.replay, d)
	case "metrics":
		writeMetrics(stdout, sc, r, res, expected.String())
	case "mermaid":
		writeMermaid(stdout, inf(stdout, lang.Text{EN: "%s, %s, seed %d: %s", DE: "%s, %s, Seed %d: %s"}, sc.Name, r.v.Name, r.seed, res.Outcome), res)
	case "html":
		summary, _ := scenarioText(stdout, sc)
		note, narrative := runNote(stdout, sc, r, res, expected)
		return report.WriteRun(stdout, report.Run{ID: "run", Title: strings.TrimSpace(inf(stdout, lang.Text{EN: "Scenario %s, variant %s, seed %d\n", DE: "Szenario %s, Variante %s, Seed %d\n"}, sc.Name, r.v.Name, r.seed)),
			Summary: summary, Note: note, Narrative: narrative, Outcome: res.Outcome, Expected: expected,
			Violations: res.Violations, Replay: withLang(stdout, r.replay+" --format html"), Trace: res.Trace}, reportOptions(stdout))
	default:
		policy := ""
		if r.tuned {
			policy = describePolicy(r.v).In(langOf(stdout))
		}
		writeScenarioText(stdout, sc, r, expected, res, d, withLang(stdout, r.replay), policy)
	}
	return nil
}

// scenarioOptions are the scenario command's flags.
type scenarioOptions struct {
	variant, seed, file, relays, alert *string
	poll                               *bool
	format                             *choice
	relay                              relayFlags
}

// scenarioFlags declares the scenario command's flags.
func scenarioFlags(stdout io.Writer) (*flags, scenarioOptions) {
	fs := newFlags("scenario", "NAME|--file F", lang.Text{
		EN: "One run told as a timeline: a story of the chapters, a mistake's story, or any cell of the matrix (POINT@K, see labrun list); NAME is one of them, F a story file of your own.",
		DE: "Ein Lauf als Zeitleiste: eine Geschichte der Kapitel, die eines Fehlers oder jede Zelle der Matrix (PUNKT@K, siehe labrun list); NAME ist eine davon, F eine eigene Geschichte als Datei.",
	}, stdout)
	var o scenarioOptions
	o.variant = fs.text("variant", "V", lang.Textf(lang.Text{
		EN: "the variant to run (default: the scenario's own, else outbox): %s",
		DE: "die Variante, die läuft (Standard: die des Szenarios, sonst outbox): %s",
	}, strings.Join(scenarios.VariantNames(), ", ")))
	o.seed = fs.text("seed", "N", lang.Textf(lang.Text{
		EN: "the seed of the run, a whole number >= 0 (default: the scenario's own, else %d)",
		DE: "der Seed des Laufs, eine ganze Zahl >= 0 (Standard: der des Szenarios, sonst %d)",
	}, scenarios.MatrixSeed))
	o.file = fs.alternative("file", "F", lang.Text{
		EN: "a story file to play instead of a named scenario (the format: go doc outboxlab/scenarios)",
		DE: "eine Geschichte als Datei, statt eines benannten Szenarios (das Format: go doc outboxlab/scenarios)",
	})
	o.relays = fs.text("relays", "N", lang.Textf(lang.Text{
		EN: "how many relays run side by side, a whole number from 1 to %d (default: the scenario's own)",
		DE: "wie viele Relays nebeneinander laufen, eine ganze Zahl von 1 bis %d (Standard: die des Szenarios)",
	}, scenarios.MaxRelays))
	o.poll = fs.boolean("poll", lang.Text{
		EN: "poll every relay as its production loop does (every IdlePoll, BusyPoll after a step that did something) instead of waking it when its NextWake says",
		DE: "jedes Relay pollen, wie es seine Produktionsschleife tut (alle IdlePoll, BusyPoll nach einem Schritt, der etwas tat), statt es zu wecken, wann sein NextWake es sagt",
	})
	o.alert = fs.text("alert", "D", lang.Text{
		EN: "with --format metrics: the age of the oldest unsent message that raises the alert (default 1m; chapter 001: a small queue can be critical when its oldest entry misses a deadline)",
		DE: "mit --format metrics: das Alter der ältesten ungesendeten Nachricht, das den Alarm auslöst (Standard 1m; Kapitel 001: eine kleine Warteschlange kann kritisch sein, wenn ihr ältester Eintrag eine Frist überschreitet)",
	})
	o.relay = declareRelayFlags(fs)
	o.format = fs.formatFlag("text", "json", "mermaid", "html", "metrics")
	return fs, o
}

// pickScenario is the scenario a story file or a NAME says.
func pickScenario(file string, rest []string) (scenarios.Scenario, error) {
	switch {
	case file != "" && len(rest) > 0:
		return scenarios.Scenario{}, usagef(lang.Text{EN: "unexpected argument %q (scenario takes a NAME or --file, not both)", DE: "unerwartetes Argument %q (scenario nimmt einen NAMEN oder --file, nicht beides)"}, rest[0])
	case file != "":
		text, err := os.ReadFile(file)
		if err != nil {
			return scenarios.Scenario{}, usagef(lang.Text{EN: "--file: %v", DE: "--file: %v"}, err)
		}
		f, err := scenarios.ParseFile(file, string(text))
		if err != nil {
			return scenarios.Scenario{}, usageFrom(err)
		}
		return f.Scenario, nil
	case len(rest) == 0:
		return scenarios.Scenario{}, usagef(lang.Text{EN: "missing scenario NAME or --file F (see `labrun list`)", DE: "Szenario-NAME oder --file F fehlt (siehe `labrun list`)"})
	case len(rest) > 1:
		return scenarios.Scenario{}, usagef(lang.Text{EN: "unexpected argument %q (scenario takes one NAME)", DE: "unerwartetes Argument %q (scenario nimmt einen NAMEN)"}, rest[1])
	}
	sc, err := scenarios.FindScenario(rest[0])
	if err != nil {
		return sc, usageFrom(err)
	}
	return sc, nil
}

// alertFlag reads --alert: a positive duration, and only for the metrics
// view.
func alertFlag(text, format string) (time.Duration, error) {
	if text == "" {
		return time.Minute, nil
	}
	if format != "metrics" {
		return 0, usagef(lang.Text{EN: "--alert %s: the alert belongs to the metrics view (add --format metrics)", DE: "--alert %s: der Alarm gehört zur Metrik-Ansicht (mit --format metrics)"}, text)
	}
	d, err := time.ParseDuration(text)
	if err != nil || d <= 0 {
		return 0, usagef(lang.Text{EN: "--alert %q is not a positive duration (e.g. 30s, 1m, 5m)", DE: "--alert %q ist keine positive Dauer (z. B. 30s, 1m, 5m)"}, text)
	}
	return d, nil
}

// sameStory refuses a variant that cannot play sc's workload: a story's
// variant (chapter 004's claims) plays its own stories, the matrix's
// variants (orders) the others.
func sameStory(sc scenarios.Scenario, v variant.Variant) error {
	own := scenarios.IsStoryVariant(sc.Variant)
	if own == scenarios.IsStoryVariant(v.Name) {
		return nil
	}
	var valid []string
	for _, s := range scenarios.StoryVariants() {
		valid = append(valid, s.Name)
	}
	if own {
		return usageText(lang.Textf(lang.Text{
			EN: "--variant %s: scenario %s tells a story of its own; its variants are %s",
			DE: "--variant %s: das Szenario %s erzählt eine eigene Geschichte; seine Varianten sind %s",
		}, v.Name, sc.Name, strings.Join(valid, ", ")))
	}
	return usageText(lang.Textf(lang.Text{
		EN: "--variant %s tells a story of its own and cannot play scenario %s (valid: %s)",
		DE: "--variant %s erzählt eine eigene Geschichte und kann das Szenario %s nicht spielen (gültig: %s)",
	}, v.Name, sc.Name, strings.Join(scenarios.VariantNames(), ", ")))
}

// relaysFlag reads --relays: from 1 to scenarios.MaxRelays, and no more
// than v supports.
func relaysFlag(text string, v variant.Variant) (int, error) {
	n64, err := wholeNumber("--relays", text, 1)
	if err != nil {
		return 0, err
	}
	if n64 > scenarios.MaxRelays {
		return 0, usagef(lang.Text{EN: "--relays %d is too large (at most %d)", DE: "--relays %d ist zu groß (höchstens %d)"}, n64, scenarios.MaxRelays)
	}
	n := int(n64)
	if m := v.MaxRelays; m > 0 && n > m {
		return 0, usagef(lang.Text{EN: "--relays %d: variant %s supports at most %d relay(s)", DE: "--relays %d: Variante %s unterstützt höchstens %d Relay(s)"}, n, v.Name, m)
	}
	return n, nil
}

// writeScenarioText writes a scenario's run as text: what the scenario
// is, then the run's transcript (verdict.Transcript), as a test's
// -lab.replay writes it too.
func writeScenarioText(w io.Writer, sc scenarios.Scenario, r scenarioRun, expected variant.Outcome, res sim.Result, d *sim.Divergence, replay, policy string) {
	summary, _ := scenarioText(w, sc)
	fmt.Fprint(w, inf(w, lang.Text{EN: "Scenario %s, variant %s, seed %d\n", DE: "Szenario %s, Variante %s, Seed %d\n"}, sc.Name, r.v.Name, r.seed))
	fmt.Fprintf(w, "%s\n", summary)
	if policy != "" {
		fmt.Fprintf(w, "%s\n", lang.Wrap("", "", policy, 78))
	}
	note, narrative := runNote(w, sc, r, res, expected)
	if note != "" {
		fmt.Fprintf(w, "\n%s\n", lang.Wrap("", "", note, 78))
	}
	if narrative != "" {
		fmt.Fprintf(w, "\n%s\n", lang.Wrap("", "", narrative, 78))
	}
	fmt.Fprintln(w)
	verdict.Transcript{Result: res, Expected: expected, Replay: replay, Divergence: d}.Write(w, langOf(w))
}

// runNote says what this run is where the story's narration does not
// tell it, and returns the narration to print after it ("" for none): a
// story told with the reference, played with a variant that ends
// otherwise (what this variant is, how its run ends, and that the story
// below is the reference's); a story played with another number of
// relays than it tells (its narration would tell of relays that do not
// run: it is left out).
func runNote(w io.Writer, sc scenarios.Scenario, r scenarioRun, res sim.Result, expected variant.Outcome) (note, narrative string) {
	narrative = sc.Narrative.In(langOf(w))
	if narrative == "" {
		return "", ""
	}
	if r.cfg.Relays != r.storyRelays {
		return inf(w, lang.Text{
			EN: "This run: %s (--relays), where the story tells its run with %d; its narration is left out: the timeline below says what happened.",
			DE: "Dieser Lauf: %s (--relays), die Geschichte erzählt ihren Lauf mit %d; ihre Erzählung entfällt: die Zeitleiste unten sagt, was geschah.",
		}, relaysText(r.cfg.Relays), r.storyRelays), ""
	}
	if sc.Variant != "" || r.v.Name == "outbox" || res.Outcome == variant.OK {
		return "", narrative
	}
	how := lang.Text{EN: "as declared", DE: "wie erwartet"}
	if res.Outcome != expected {
		how = lang.Textf(lang.Text{EN: "but the variant declares %s", DE: "die Variante erwartet aber %s"}, expected)
	}
	return inf(w, lang.Text{
		EN: "This run: variant %s (%s) ends %s, %s; see below. The story below is told with the reference, variant outbox:",
		DE: "Dieser Lauf: Variante %s (%s) endet %s, %s; siehe unten. Die Geschichte unten ist mit der Referenz erzählt, Variante outbox:",
	}, r.v.Name, r.v.Summary, res.Outcome, how), narrative
}

// relaysText counts relays: "1 relay", "3 relays".
func relaysText(n int) lang.Text {
	if n == 1 {
		return lang.Text{EN: "1 relay", DE: "1 Relay"}
	}
	return lang.Textf(lang.Text{EN: "%d relays", DE: "%d Relays"}, n)
}

// scenarioText returns a scenario's summary and narrative in w's language.
func scenarioText(w io.Writer, sc scenarios.Scenario) (summary, narrative string) {
	return sc.Summary.In(langOf(w)), sc.Narrative.In(langOf(w))
}

type jsonStep struct {
	At       string   `json:"at"`
	Process  string   `json:"process"`
	Kind     string   `json:"kind"`
	Action   string   `json:"action"`
	Result   string   `json:"result,omitempty"`
	Messages []string `json:"messages,omitempty"`
	Changes  []string `json:"changes,omitempty"`
}

func writeScenarioJSON(w io.Writer, sc scenarios.Scenario, variantName string, seed uint64, expected variant.Outcome, res sim.Result, replay string, d *sim.Divergence) error {
	out := struct {
		Scenario   string     `json:"scenario"`
		Summary    string     `json:"summary"`
		Narrative  string     `json:"narrative,omitempty"`
		Variant    string     `json:"variant"`
		Seed       uint64     `json:"seed"`
		Outcome    string     `json:"outcome"`
		Expected   string     `json:"expected"`
		Violations []string   `json:"violations"`
		Replay     string     `json:"replay"`
		Steps      []jsonStep `json:"steps"`
		// Divergence is where a second run from the same seed parted
		// from this one: the run is NONDETERMINISTIC.
		Divergence *jsonDivergence `json:"nondeterministic,omitempty"`
	}{Scenario: sc.Name, Summary: sc.Summary.EN, Narrative: sc.Narrative.EN, Variant: variantName, Seed: seed,
		Outcome: res.Outcome.String(), Expected: expected.String(), Violations: []string{}, Steps: []jsonStep{},
		Replay: replay, Divergence: toJSONDivergence(d)}
	for _, v := range res.Violations {
		out.Violations = append(out.Violations, v.String())
	}
	out.Steps = jsonSteps(res)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// jsonSteps renders a run's trace for JSON.
func jsonSteps(res sim.Result) []jsonStep {
	steps := []jsonStep{}
	for _, s := range res.Trace {
		var changes []string
		for _, c := range s.Changes {
			changes = append(changes, c.EN)
		}
		steps = append(steps, jsonStep{At: sim.FormatTime(s.At), Process: s.Process, Kind: string(s.Kind),
			Action: s.Action, Result: s.Result.EN, Messages: s.Messages, Changes: changes})
	}
	return steps
}
