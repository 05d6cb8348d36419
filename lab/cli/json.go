package cli

import (
	"encoding/json"
	"io"

	"outboxlab/lab/verdict"
	"outboxlab/sim"
	"outboxlab/variant"
)

type jsonMatrix struct {
	Variants []string      `json:"variants"`
	Points   []jsonPoint   `json:"points"`
	Cells    []jsonCell    `json:"cells"`
	Verdicts []jsonVerdict `json:"verdicts"`
}

type jsonPoint struct {
	ID          string `json:"id"`
	Kind        string `json:"kind"`
	Description string `json:"description,omitempty"`
}

type jsonCell struct {
	Variant        string          `json:"variant"`
	Point          string          `json:"point"`
	Outcome        variant.Outcome `json:"outcome"`
	Expected       variant.Outcome `json:"expected"`
	Runs           int             `json:"runs"`
	Violations     []string        `json:"violations"`
	Counterexample *jsonCounterex  `json:"counterexample"`
	// Unhandled, Swallowed and Panics are the missteps of MisstepRun
	// (sim.Missteps).
	Unhandled  []string       `json:"unhandled,omitempty"`
	Swallowed  []string       `json:"swallowed,omitempty"`
	Panics     []string       `json:"panics,omitempty"`
	MisstepRun *jsonCounterex `json:"misstepRun,omitempty"`
}

type jsonCounterex struct {
	Seed     uint64   `json:"seed"`
	Schedule []string `json:"schedule"`
	Replay   string   `json:"replay"`
}

// jsonVerdict is a verdict.Verdict: what the grader found, typed.
type jsonVerdict struct {
	Variant string `json:"variant"`
	Depth   string `json:"depth"`
	Passed  bool   `json:"passed"`
	// FailsAsDeclared counts, for a passed variant that declares
	// failures, the matrix cells of each outcome other than OK.
	FailsAsDeclared []verdict.Failure `json:"failsAsDeclared,omitempty"`
	Runs            int               `json:"runs"`
	Stages          []jsonStage       `json:"stages"`
	Findings        []jsonFinding     `json:"findings"`
}

type jsonStage struct {
	Stage  string `json:"stage"`
	Runs   int    `json:"runs"`
	Points int    `json:"points,omitempty"`
	Failed int    `json:"failed"`
}

type jsonFinding struct {
	Stage    string          `json:"stage"`
	Cause    verdict.Cause   `json:"cause"`
	Outcome  variant.Outcome `json:"outcome"`
	Expected variant.Outcome `json:"expected"`
	Point    string          `json:"point,omitempty"`
	Detail   string          `json:"detail"`
	Replay   string          `json:"replay"`
}

// toJSONVerdict is v as JSON writes it.
func toJSONVerdict(v verdict.Verdict) jsonVerdict {
	out := jsonVerdict{Variant: v.Variant, Depth: v.Depth.String(), Passed: v.Passed(), Runs: v.Runs(), Stages: []jsonStage{}, Findings: []jsonFinding{}}
	if v.Passed() {
		out.FailsAsDeclared = v.Failures()
	}
	for _, s := range v.Stages {
		out.Stages = append(out.Stages, jsonStage{Stage: s.Stage.String(), Runs: s.Runs, Points: s.Points, Failed: s.Failed})
	}
	for _, f := range v.Findings {
		out.Findings = append(out.Findings, jsonFinding{Stage: f.Stage.String(), Cause: f.Cause, Outcome: f.Outcome, Expected: f.Expected,
			Point: f.Point, Detail: f.Detail.EN, Replay: f.Run.Command(programName())})
	}
	return out
}

func writeMatrixJSON(w io.Writer, m sim.Matrix, variants []variant.Variant, cells []sim.Cell, verdicts []verdict.Verdict) error {
	out := jsonMatrix{Variants: []string{}, Points: []jsonPoint{}, Cells: []jsonCell{}, Verdicts: []jsonVerdict{}}
	for _, v := range verdicts {
		out.Verdicts = append(out.Verdicts, toJSONVerdict(v))
	}
	for _, v := range variants {
		out.Variants = append(out.Variants, v.Name)
	}
	for _, p := range m.Points {
		out.Points = append(out.Points, jsonPoint{ID: p.ID, Kind: string(p.Kind)})
	}
	for _, c := range cells {
		jc := jsonCell{Variant: c.Variant, Point: c.Point.ID, Outcome: c.Outcome, Expected: c.Expected, Runs: c.Runs, Violations: []string{}}
		for _, v := range c.Violations {
			jc.Violations = append(jc.Violations, v.String())
		}
		if ce := c.Counterexample; ce != nil {
			jc.Counterexample = &jsonCounterex{Seed: ce.Seed, Schedule: ce.Schedule, Replay: ce.Command(programName())}
		}
		if ce := c.MisstepRun; ce != nil {
			jc.Unhandled, jc.Swallowed, jc.Panics = c.Unhandled, c.Swallowed, c.Panics
			jc.MisstepRun = &jsonCounterex{Seed: ce.Seed, Schedule: ce.Schedule, Replay: ce.Command(programName())}
		}
		out.Cells = append(out.Cells, jc)
	}
	return writeJSON(w, out)
}

// writeJSON writes v indented, without HTML escapes.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
