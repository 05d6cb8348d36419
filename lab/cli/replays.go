package cli

import (
	"fmt"
	"io"
	"strings"

	"outboxlab/lang"
	"outboxlab/sim"
	"outboxlab/variant"
)

// A run labrun replays is made twice (sim.RunTwice): a run that goes two
// ways from one seed is NONDETERMINISTIC, and labrun says where the two
// part rather than show one of them as the run.

// writeDivergence says, under a run's timeline, that the run did not
// replay: where the two runs part, both events, and the usual causes.
func writeDivergence(w io.Writer, d *sim.Divergence) {
	fmt.Fprintf(w, "\n%s", d.Report(langOf(w), 78))
}

// jsonDivergence is a divergence as JSON writes it.
type jsonDivergence struct {
	Event   int      `json:"event"`
	At      string   `json:"at"`
	Process string   `json:"process"`
	Text    string   `json:"text"`
	Lines   []string `json:"lines"`
}

// toJSONDivergence is d as JSON writes it, nil for none.
func toJSONDivergence(d *sim.Divergence) *jsonDivergence {
	if d == nil {
		return nil
	}
	return &jsonDivergence{Event: d.Index + 1, At: sim.FormatTime(d.At), Process: d.Process, Text: d.Text().EN,
		Lines: strings.Split(d.Lines().EN, "\n")}
}

// divergenceError is the error of a command whose run did not replay,
// for an output (a diagram, a page) that has no place to say it.
func divergenceError(d *sim.Divergence) error {
	return lang.Errorf(lang.Text{EN: "%s: %s", DE: "%s: %s"}, variant.NonDeterministic, d.Text())
}
