package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"outboxlab/internal/mutation"
)

// finish saves the results, prints the summary, writes the pages and,
// with --check, compares the score with the one hist saved: exit 1 when
// it fell.
func (a *analysis) finish(ms []mutation.Mutant, results []mutation.Result, hist mutation.History, took time.Duration) (int, error) {
	if a.save != "" {
		if err := writeResults(a.save, results); err != nil {
			return 1, err
		}
	}
	if a.part.N > 1 {
		fmt.Fprintf(a.stdout, "shard %s: %d results in %s; merge the shards with labwhy merge\n", a.part, len(results), a.save)
		return 0, nil
	}
	an := mutation.NewAnalysis(ms, results, took)
	if err := report(an, a.outs, a.stdout); err != nil {
		return 1, err
	}
	if !a.flags.check {
		return 0, nil
	}
	return checkScore(an, ms, hist, a.flags.history, a.stdout), nil
}

// checkScore compares an's overall score with the one the saved results
// give the same mutants, and says which is higher: 1 when an's is lower,
// or when an has a survivor nobody explained.
func checkScore(an mutation.Analysis, ms []mutation.Mutant, hist mutation.History, file string, w io.Writer) int {
	saved, _ := hist.Match(ms)
	var known []mutation.Mutant
	for _, m := range ms {
		if _, ok := saved[m.ID]; ok {
			known = append(known, m)
		}
	}
	was := mutation.NewAnalysis(known, byID(ms, saved), 0).Scores()
	now := an.Scores()
	before, after := was[len(was)-1], now[len(now)-1]
	if len(known) == 0 {
		fmt.Fprintf(w, "\nscore %.1f %% (%s has no saved result to compare with)\n", after.Percent(), file)
		return 1
	}
	if after.Percent() < before.Percent() {
		fmt.Fprintf(w, "\nthe mutation score fell: %.1f %% (%d killed), %s says %.1f %% (%d killed)\n", after.Percent(), after.Killed, file, before.Percent(), before.Killed)
		return 1
	}
	if n := an.Unexplained(); n > 0 {
		fmt.Fprintf(w, "\n%d survivors nobody explained: add each to mutation.Survivors with its reason, or a row that catches it\n", n)
		return 1
	}
	fmt.Fprintf(w, "\nscore %.1f %% (%d killed), %s says %.1f %% (%d killed): not lower\n", after.Percent(), after.Killed, file, before.Percent(), before.Killed)
	return 0
}

// writeResults writes results, one JSON object per line.
func writeResults(file string, results []mutation.Result) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, r := range results {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// report prints the summary and writes the page to each of outs: HTML
// for a name ending in .html, Markdown otherwise, - for stdout.
func report(a mutation.Analysis, outs []string, stdout io.Writer) error {
	a.WriteSummary(stdout)
	for _, out := range outs {
		if err := writePage(a, out, stdout); err != nil {
			return err
		}
	}
	return nil
}

// writePage writes the annotated reference to out.
func writePage(a mutation.Analysis, out string, stdout io.Writer) error {
	var w io.Writer = stdout
	if out != "-" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	write := a.WritePage
	if strings.HasSuffix(out, ".html") {
		write = a.WriteHTML
	}
	if err := write(w, "."); err != nil {
		return err
	}
	if out != "-" {
		fmt.Fprintf(stdout, "The annotated reference: %s\n", out)
	}
	return nil
}
