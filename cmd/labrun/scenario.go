package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"outboxlab/check"
	"outboxlab/scenarios"
	"outboxlab/sim"
)

func runScenario(args []string, stdout io.Writer) error {
	const synopsis = "scenario NAME [--variant V] [--seed N] [--format text|json]"
	fs := newFlags("scenario", synopsis, stdout)
	variantName := fs.String("variant", "outbox", "the variant to run: "+strings.Join(scenarios.VariantNames(), ", "))
	seedText := fs.String("seed", strconv.Itoa(scenarios.MatrixSeed), "the seed of the run, a whole number >= 0")
	format := &choice{value: "text", choices: []string{"text", "json"}}
	fs.Var(format, "format", "output format: text or json")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(rest) == 0:
		return usagef("missing scenario NAME (see `labrun list`)")
	case len(rest) > 1:
		return usagef("unexpected argument %q (scenario takes one NAME)", rest[1])
	}
	seed, err := strconv.ParseUint(*seedText, 10, 64)
	if err != nil {
		return usagef("--seed %q is not a whole number >= 0", *seedText)
	}
	v, err := scenarios.FindVariant(*variantName)
	if err != nil {
		return usageError{err.Error()}
	}
	sc, err := scenarios.FindScenario(rest[0])
	if err != nil {
		return usageError{err.Error()}
	}
	res, err := sim.Run(sc.Configure(v, seed))
	if err != nil {
		return err
	}
	expected := check.OK
	if sc.Point != "" {
		expected = v.Expected(sc.Point)
	}
	if format.value == "json" {
		err = writeScenarioJSON(stdout, sc, v.Name, seed, expected, res)
	} else {
		writeScenarioText(stdout, sc, v.Name, seed, expected, res)
	}
	if err != nil {
		return err
	}
	if res.Outcome != expected {
		return errMismatch
	}
	return nil
}

func writeScenarioText(w io.Writer, sc scenarios.Scenario, variantName string, seed uint64, expected check.Outcome, res sim.Result) {
	fmt.Fprintf(w, "Scenario %s, variant %s, seed %d\n%s\n", sc.Name, variantName, seed, sc.Summary)
	if sc.Narrative != "" {
		fmt.Fprintf(w, "\n%s\n", sc.Narrative)
	}
	fmt.Fprintln(w)
	for _, s := range res.Trace {
		fmt.Fprintln(w, s)
	}
	fmt.Fprintf(w, "\nOutcome: %s (expected %s)\n", res.Outcome, expected)
	for _, v := range res.Violations {
		fmt.Fprintf(w, "  %s\n", v)
	}
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

func writeScenarioJSON(w io.Writer, sc scenarios.Scenario, variantName string, seed uint64, expected check.Outcome, res sim.Result) error {
	out := struct {
		Scenario   string     `json:"scenario"`
		Variant    string     `json:"variant"`
		Seed       uint64     `json:"seed"`
		Outcome    string     `json:"outcome"`
		Expected   string     `json:"expected"`
		Violations []string   `json:"violations"`
		Steps      []jsonStep `json:"steps"`
	}{Scenario: sc.Name, Variant: variantName, Seed: seed, Outcome: res.Outcome.String(), Expected: expected.String(), Violations: []string{}, Steps: []jsonStep{}}
	for _, v := range res.Violations {
		out.Violations = append(out.Violations, v.String())
	}
	for _, s := range res.Trace {
		out.Steps = append(out.Steps, jsonStep{At: sim.FormatTime(s.At), Process: s.Process, Kind: string(s.Kind),
			Action: s.Action, Result: s.Result, Messages: s.Messages, Changes: s.Changes})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
