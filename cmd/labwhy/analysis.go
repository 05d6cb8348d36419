package main

import (
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"outboxlab/internal/mutation"
	"outboxlab/internal/shard"
)

// analysis is one run of labwhy over some files of the reference path.
type analysis struct {
	files          []mutation.File
	depth          mutation.Depth
	flags          flags
	part           shard.Shard // the shard this run grades; 1/1 for the whole
	stdout, stderr io.Writer
	// outs are the pages to write, save where the results go ("" for
	// nowhere).
	outs []string
	save string
	// hashes are the files' hashes (mutation.Hash), for the results.
	hashes map[string]string
	// lab replaces files of the lab (path from the module's root: its
	// content) in every grader built: a test's weakened lab.
	lab map[string][]byte
}

// plan decides what the run writes: the pages and the saved results of
// the whole path by default, what --out and --results name, nothing with
// --check or for a shard beyond its --results.
func (a *analysis) plan() {
	f := a.flags
	whole := len(a.files) == len(mutation.Reference)
	switch {
	case f.out != "":
		a.outs = []string{f.out}
	case whole && !f.check && a.part.N == 1:
		a.outs = []string{"docs/why.md", "docs/why.html"}
	}
	switch {
	case f.results != "":
		a.save = f.results
	case whole && f.from == "" && a.depth >= mutation.Full && !f.check && a.part.N == 1:
		a.save = savedResults
	}
	if a.part.N > 1 {
		a.outs = nil
	}
}

// run grades what it must and reports; its int is the exit code.
func (a *analysis) run() (int, error) {
	start := time.Now()
	ms, err := mutation.Generate(".", a.files)
	if err != nil {
		return 1, err
	}
	if a.flags.from != "" {
		hist, err := mutation.LoadHistory(a.flags.from)
		if err != nil {
			return 1, err
		}
		saved, all := hist.Match(ms)
		if !all || hist.Len() == 0 {
			return 1, fmt.Errorf("%s has no result for some mutants: the reference changed since; grade again (go run ./cmd/labwhy)", a.flags.from)
		}
		return a.finish(ms, byID(ms, saved), mutation.History{}, 0)
	}
	hist, err := mutation.LoadHistory(a.flags.history)
	if err != nil {
		return 1, err
	}
	results, grade, err := a.kept(ms, hist)
	if err != nil {
		return 1, err
	}
	graded, err := a.grade(ms, grade, hist.Order())
	if err != nil {
		return 1, err
	}
	saved, _ := hist.Match(ms)
	for _, r := range graded {
		if s, ok := saved[r.ID]; ok && a.depth == mutation.Full {
			r = mutation.KeepRows(s, r)
		}
		results[r.ID] = r
	}
	var out []mutation.Result
	for _, m := range ms {
		if r, ok := results[m.ID]; ok && a.part.Owns(m.ID) {
			out = append(out, r)
		}
	}
	return a.finish(ms, out, hist, time.Since(start))
}

// kept returns the saved results that stand (equivalent mutants of
// files unchanged since they were graded; with --check, every survivor;
// with --since, every mutant of a file unchanged since the revision),
// with key and hash set, and the mutants of this shard to grade.
func (a *analysis) kept(ms []mutation.Mutant, hist mutation.History) (map[int]mutation.Result, []mutation.Mutant, error) {
	saved, _ := hist.Match(ms)
	hashes := map[string]string{}
	for _, f := range a.files {
		h, err := mutation.Hash(".", f.Path)
		if err != nil {
			return nil, nil, err
		}
		hashes[f.Path] = h
	}
	unchanged, err := unchangedSince(a.flags.since, a.files)
	if err != nil {
		return nil, nil, err
	}
	results := map[int]mutation.Result{}
	var grade []mutation.Mutant
	for _, m := range ms {
		r, ok := saved[m.ID]
		switch {
		case unchanged[m.File] && !ok:
			return nil, nil, fmt.Errorf("--since %s: %s is unchanged, but %s has no result for %s:%d %s; grade it (go run ./cmd/labwhy --file %s)", a.flags.since, m.File, a.flags.history, m.File, m.Line, m.Change, m.File)
		case ok && (unchanged[m.File] || !a.flags.regrade && (mutation.Reuse(r, m, hashes[m.File]) || a.flags.check && mutation.StandsForCheck(r))):
			r.Key = m.Key
			results[m.ID] = r
		case a.part.Owns(m.ID):
			grade = append(grade, m)
		}
	}
	a.hashes = hashes
	return results, grade, nil
}

// unchangedSince returns the files of the reference path that git says
// are the same in the work tree as at rev; none for rev "".
func unchangedSince(rev string, files []mutation.File) (map[string]bool, error) {
	out := map[string]bool{}
	if rev == "" {
		return out, nil
	}
	args := []string{"diff", "--name-only", rev, "--"}
	for _, f := range files {
		args = append(args, f.Path)
	}
	changed, err := exec.Command("git", args...).Output()
	if err != nil {
		return nil, fmt.Errorf("--since %s: git diff: %v (want a revision git knows, e.g. main or HEAD~3)", rev, err)
	}
	for _, f := range files {
		out[f.Path] = true
	}
	for _, p := range strings.Fields(string(changed)) {
		delete(out, p)
	}
	return out, nil
}

// byID orders a result map by the mutants' ids.
func byID(ms []mutation.Mutant, rs map[int]mutation.Result) []mutation.Result {
	var out []mutation.Result
	for _, m := range ms {
		if r, ok := rs[m.ID]; ok {
			out = append(out, r)
		}
	}
	return out
}

// progress reports the graded mutants: a line that rewrites itself on a
// terminal, a line at the end otherwise (a log file, CI).
func (a *analysis) progress(total int) (func(int), func()) {
	if !isTerminal(a.stderr) {
		return nil, func() { fmt.Fprintf(a.stderr, "%d mutants graded\n", total) }
	}
	return func(done int) { fmt.Fprintf(a.stderr, "\r%d/%d mutants graded", done, total) },
		func() { fmt.Fprintln(a.stderr) }
}
