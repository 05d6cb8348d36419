package cli

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"outboxlab/lab/verdict"
	"outboxlab/lang"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// tunedRun is a matrix whose variants' relay policy labrun's flags
// change.
type tunedRun struct {
	selected []variant.Variant
	named    bool // the variants were named with --variant
	settings []relaySetting
	format   string
	wide     bool
	depth    verdict.Depth
}

// tunedMatrix grades the matrix of variants whose relay policy the flags
// change, each judged by its changed policy as the grader judges a
// variant's declared one. Without --variant the columns are the matrix's
// variants built on the reference relay. The matrix alone: the stages
// beyond it replay through labrun explore, which keeps the course's
// policy.
func tunedMatrix(stdout io.Writer, fs *flags, r tunedRun) error {
	depthGiven := false
	fs.Visit(func(f *flag.Flag) { depthGiven = depthGiven || f.Name == "depth" })
	if depthGiven && r.depth != verdict.Quick {
		return usagef(lang.Text{
			EN: "--depth %s: a changed relay policy (%s) grades the matrix alone; valid: --depth quick, or no --depth",
			DE: "--depth %s: eine geänderte Strategie des Relays (%s) bewertet nur die Matrix; gültig: --depth quick oder kein --depth",
		}, r.depth, r.settings[0].flag)
	}
	var tuned []variant.Variant
	flags := ""
	for _, v := range r.selected {
		if v.RelayConfig == nil && !r.named {
			continue // a relay of its own: its policy is in its code
		}
		if v.RelayConfig == nil {
			var valid []string
			for _, name := range tunableVariants() {
				if !scenarios.IsStoryVariant(name) {
					valid = append(valid, name)
				}
			}
			return usageText(lang.Textf(lang.Text{
				EN: "%s changes the policy of the reference relay; %s has a relay of its own (valid: %s)",
				DE: "%s ändert die Strategie des Referenz-Relays; %s hat ein eigenes Relay (gültig: %s)",
			}, r.settings[0].flag, v.Name, strings.Join(valid, ", ")))
		}
		w, f, err := withRelaySettings(v, r.settings)
		if err != nil {
			return err
		}
		tuned, flags = append(tuned, w), f
	}
	if r.format == "table" || r.format == "markdown" {
		for _, v := range tuned {
			fmt.Fprintln(stdout, lang.Wrap(v.Name+": ", "  ", describePolicy(v).In(langOf(stdout)), width))
		}
		fmt.Fprintln(stdout)
	}
	return matrixCommandWith(stdout, tuned, matrixOutput{format: r.format, wide: r.wide, depth: verdict.Quick, flags: flags})
}

// withReplayFlags returns verdicts whose every replay command adds flags.
func withReplayFlags(verdicts []verdict.Verdict, flags string) []verdict.Verdict {
	out := slices.Clone(verdicts)
	for i := range out {
		out[i].Cells = slices.Clone(out[i].Cells)
		for j := range out[i].Cells {
			c := &out[i].Cells[j]
			for _, ce := range []**sim.RunID{&c.Counterexample, &c.MisstepRun} {
				if *ce != nil {
					with := **ce
					with.Flags = flags
					*ce = &with
				}
			}
		}
		out[i].Findings = slices.Clone(out[i].Findings)
		for j := range out[i].Findings {
			out[i].Findings[j].Run.Flags = flags
		}
	}
	return out
}
