// Command labwhy runs the mutation analysis of the reference path: every
// mutant built with go build -overlay and graded by the lab (the matrix,
// the double-crash sweep, the failure sweep, exploration). It prints the mutation score and
// the survivors, and writes the annotated reference, every line with the
// rows that fail without it:
//
//	go run ./cmd/labwhy                          the whole reference path, about fourteen minutes on 2 cores
//	go run ./cmd/labwhy --file outbox/relay.go   one file
//	go run ./cmd/labwhy --out why.html           where the annotated reference goes (default: docs/why.md and docs/why.html)
//
// It must run from the module's root. The binary it builds is itself with
// the mutants in; that grader is what the flag -mutants runs.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"outboxlab/internal/mutation"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("labwhy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("file", "", "mutate only this file of the reference path (e.g. outbox/relay.go)")
	pkg := fs.String("package", "", "mutate only the files of this package (e.g. outbox)")
	out := fs.String("out", "", "write the annotated reference here: HTML for a name ending in .html, Markdown otherwise, - for stdout (default: docs/why.md and docs/why.html for the whole reference path, nowhere for a part)")
	workers := fs.Int("workers", runtime.NumCPU(), "grader processes at once")
	mutants := fs.String("mutants", "", "grader mode: grade these mutant ids (the binary must be built with them)")
	quick := fs.Bool("quick", false, "grade with the matrix's cells until one goes red")
	from := fs.String("from", "", "write the page from the results saved in this file instead of grading again (e.g. docs/why.results.json)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	depth := mutation.Full
	if *quick {
		depth = mutation.FirstRed
	}
	if *mutants != "" {
		var ids []int
		for _, s := range strings.Split(*mutants, ",") {
			id, err := strconv.Atoi(s)
			if err != nil {
				fmt.Fprintf(stderr, "labwhy: -mutants: %q is not a mutant id\n", s)
				return 2
			}
			ids = append(ids, id)
		}
		if err := mutation.ServeGrades(ids, depth, stdout); err != nil {
			fmt.Fprintf(stderr, "labwhy: %v\n", err)
			return 1
		}
		return 0
	}
	files, err := selectFiles(*file, *pkg)
	if err != nil {
		fmt.Fprintf(stderr, "labwhy: %v\n", err)
		return 2
	}
	whole := len(files) == len(mutation.Reference)
	var outs []string
	switch {
	case *out != "":
		outs = []string{*out}
	case whole:
		outs = []string{"docs/why.md", "docs/why.html"}
	}
	save := ""
	if whole && *from == "" && depth == mutation.Full {
		save = "docs/why.results.json"
	}
	if err := analyse(files, depth, *workers, outs, *from, save, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "labwhy: %v\n", err)
		return 1
	}
	return 0
}

func selectFiles(file, pkg string) ([]mutation.File, error) {
	var out []mutation.File
	var names []string
	for _, f := range mutation.Reference {
		names = append(names, f.Path)
		if (file == "" || f.Path == file) && (pkg == "" || strings.HasPrefix(f.Path, pkg+"/")) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no file of the reference path matches --file %q --package %q (valid files: %s)", file, pkg, strings.Join(names, ", "))
	}
	return out, nil
}

func analyse(files []mutation.File, depth mutation.Depth, workers int, outs []string, from, save string, stdout, stderr io.Writer) error {
	start := time.Now()
	ms, err := mutation.Generate(".", files)
	if err != nil {
		return err
	}
	if from != "" {
		results, err := load(from, ms)
		if err != nil {
			return err
		}
		return report(mutation.NewAnalysis(ms, results, 0), outs, stdout)
	}
	schemata, err := mutation.Schemata(".", ms)
	if err != nil {
		return err
	}
	var results []mutation.Result
	for i, s := range schemata {
		dir, err := os.MkdirTemp("", "labwhy")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		bin, err := mutation.Build(dir, ".", "./cmd/labwhy", s)
		if err != nil {
			return err
		}
		args := []string{}
		if depth == mutation.FirstRed {
			args = append(args, "-quick")
		}
		// The reference itself, built with the mutants switched off, must
		// pass: otherwise the build changed more than the mutants.
		base, err := mutation.Grade(bin, args, []int{-1}, 1, nil)
		if err != nil {
			return err
		}
		if base[0].Killed() {
			return fmt.Errorf("the reference built with build %d's mutants off fails: %v %s", i, base[0].Failed, base[0].Crashed)
		}
		tty := isTerminal(stderr)
		rs, err := mutation.Grade(bin, args, s.Mutants, workers, func(done int) {
			if tty {
				fmt.Fprintf(stderr, "\rbuild %d/%d: %d/%d mutants graded", i+1, len(schemata), done, len(s.Mutants))
			}
		})
		if tty {
			fmt.Fprintln(stderr)
		} else {
			// Not a terminal (a log file, CI): a line per build.
			fmt.Fprintf(stderr, "build %d/%d: %d mutants graded\n", i+1, len(schemata), len(s.Mutants))
		}
		if err != nil {
			return err
		}
		results = append(results, rs...)
	}
	if save != "" {
		f, err := os.Create(save)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(f)
		for _, r := range results {
			r.Key = ms[r.ID].Key
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return report(mutation.NewAnalysis(ms, results, time.Since(start)), outs, stdout)
}

// load reads saved results and matches them to ms by key: results of an
// older version of the reference are refused.
func load(file string, ms []mutation.Mutant) ([]mutation.Result, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	saved, err := mutation.ReadResults(f)
	if err != nil {
		return nil, err
	}
	// Two mutants can have one key (the same change of the same code twice
	// in a function, such as two equal error checks): the i-th mutant of a
	// key takes the i-th result saved under it, both in the order of ids.
	byKey := map[string][]mutation.Result{}
	for _, r := range saved {
		byKey[r.Key] = append(byKey[r.Key], r)
	}
	var out []mutation.Result
	for _, m := range ms {
		rs := byKey[m.Key]
		if len(rs) == 0 {
			return nil, fmt.Errorf("%s has no result for %s:%d %s: the reference changed since; grade again (go run ./cmd/labwhy)", file, m.File, m.Line, m.Change)
		}
		r := rs[0]
		byKey[m.Key] = rs[1:]
		r.ID = m.ID
		out = append(out, r)
	}
	return out, nil
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

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
