package cli

import (
	"io"

	"outboxlab/lab/verdict"
	"outboxlab/sim"
)

// writeTimeline prints the trace in w's language, folded as every
// transcript folds it (verdict.WriteTimeline).
func writeTimeline(w io.Writer, trace []sim.Event) { verdict.WriteTimeline(w, langOf(w), trace) }
