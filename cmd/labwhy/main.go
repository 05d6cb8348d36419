// Command labwhy runs the mutation analysis of the reference path: every
// mutant built with go build -overlay and graded by the lab's one grader
// at depth course until its first red result (the matrix, the
// double-crash sweep, the failure sweep, the polled matrix,
// exploration). It prints the mutation score and the survivors, and
// writes the annotated reference, every line with the rows that fail
// without it:
//
//	go run ./cmd/labwhy                          the whole reference path (well under a minute on 2 cores with the saved results)
//	go run ./cmd/labwhy --file outbox/relay.go   one file
//	go run ./cmd/labwhy --since main             only the files changed since main; the others keep their saved results
//	go run ./cmd/labwhy --check                  grade what can lower the score, write nothing, exit 1 when it is below the saved one (CI)
//	go run ./cmd/labwhy --rows                   a red stage runs to its end: the page lists every red matrix cell
//	go run ./cmd/labwhy --out why.html           where the annotated reference goes (default: docs/why.md and docs/why.html)
//	go run ./cmd/labwhy --shard 1/2 --results 1.json   one shard of the mutants (a CI job each)
//	go run ./cmd/labwhy merge 1.json 2.json      the shards' results merged: the unsharded run's, byte for byte
//
// The saved results (docs/why.results.json, --history) make a run
// cheap: the matrix rows that caught the most mutants run first, and a
// mutant they mark equivalent, in a file unchanged since, is not graded
// again (--regrade grades it all the same). --check grades only what can
// lower the score: the mutants the saved results kill, and those they
// do not know; a survivor graded again could only raise it.
//
// It must run from the module's root. The binary it builds is itself with
// the mutants in; that grader is what the flag -mutants runs.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"outboxlab/internal/mutation"
	"outboxlab/internal/shard"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// savedResults is where the whole path's results are kept.
const savedResults = "docs/why.results.json"

// flags are labwhy's options.
type flags struct {
	file, pkg, out, mutants, first, from, history, since, shard, results string
	workers                                                              int
	quick, rows, check, regrade                                          bool
}

func parse(args []string, stderr io.Writer) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("labwhy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.file, "file", "", "mutate only this file of the reference path (e.g. outbox/relay.go)")
	fs.StringVar(&f.pkg, "package", "", "mutate only the files of this package (e.g. outbox)")
	fs.StringVar(&f.out, "out", "", "write the annotated reference here: HTML for a name ending in .html, Markdown otherwise, - for stdout (default: docs/why.md and docs/why.html for the whole reference path, nowhere for a part)")
	fs.IntVar(&f.workers, "workers", runtime.NumCPU(), "grader processes at once")
	fs.StringVar(&f.mutants, "mutants", "", "grader mode: grade these mutant ids (the binary must be built with them)")
	fs.StringVar(&f.first, "first", "", "grader mode: the matrix rows to run first, comma-separated")
	fs.BoolVar(&f.quick, "quick", false, "grade with the matrix's cells until one goes red")
	fs.BoolVar(&f.rows, "rows", false, "let a stage that goes red run to its end: the page lists every red matrix cell of a mutant, not the first")
	fs.StringVar(&f.from, "from", "", "write the page from the results saved in this file instead of grading again (e.g. docs/why.results.json)")
	fs.StringVar(&f.history, "history", savedResults, "the saved results: the rows that caught most run first, and equivalent mutants of unchanged files are not graded again")
	fs.BoolVar(&f.regrade, "regrade", false, "grade every mutant, also those the saved results mark equivalent in an unchanged file")
	fs.StringVar(&f.since, "since", "", "grade only the mutants of the files changed since this git revision (e.g. main); the others keep their saved results")
	fs.BoolVar(&f.check, "check", false, "grade the mutants the saved results kill and those they do not know (a survivor graded again could only raise the score), write no page and no results; exit 1 when the score is below the saved results' score")
	fs.StringVar(&f.shard, "shard", "", "grade only shard I/N of the mutants (1 <= I <= N) and write their results to --results; merge the shards with labwhy merge")
	fs.StringVar(&f.results, "results", "", "write the graded results here, one JSON object per line (default: docs/why.results.json for the whole path)")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "labwhy: unexpected argument %q (the subcommand merge comes first: labwhy merge FILE...)\n", fs.Arg(0))
		return f, flag.ErrHelp
	}
	return f, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "merge" {
		return merge(args[1:], stdout, stderr)
	}
	f, err := parse(args, stderr)
	if err != nil {
		return 2
	}
	depth := mutation.Full
	switch {
	case f.quick && f.rows:
		fmt.Fprintln(stderr, "labwhy: --quick and --rows: choose one (--quick grades with the matrix only, --rows lets a red stage run to its end)")
		return 2
	case f.quick:
		depth = mutation.FirstRed
	case f.rows:
		depth = mutation.Rows
	}
	if f.mutants != "" {
		return serve(f, depth, stdout, stderr)
	}
	files, err := selectFiles(f.file, f.pkg)
	if err != nil {
		fmt.Fprintf(stderr, "labwhy: %v\n", err)
		return 2
	}
	part := shard.Shard{I: 1, N: 1}
	if f.shard != "" {
		if part, err = shard.Parse(f.shard); err != nil {
			fmt.Fprintf(stderr, "labwhy: %v\n", err)
			return 2
		}
	}
	if part.N > 1 && len(files) != len(mutation.Reference) {
		fmt.Fprintln(stderr, "labwhy: --shard splits the whole reference path: drop --file and --package")
		return 2
	}
	if part.N > 1 && f.check {
		fmt.Fprintln(stderr, "labwhy: --check compares the whole path's score: a shard has a part of it; check the merge (labwhy merge --check)")
		return 2
	}
	if part.N > 1 && f.results == "" {
		fmt.Fprintln(stderr, "labwhy: --shard needs --results FILE: the shard's results, for labwhy merge")
		return 2
	}
	job := analysis{files: files, depth: depth, flags: f, part: part, stdout: stdout, stderr: stderr}
	job.plan()
	code, err := job.run()
	if err != nil {
		fmt.Fprintf(stderr, "labwhy: %v\n", err)
		return 1
	}
	return code
}

// serve is the grader mode: grade the mutants -mutants names.
func serve(f flags, depth mutation.Depth, stdout, stderr io.Writer) int {
	var ids []int
	for _, s := range strings.Split(f.mutants, ",") {
		id, err := strconv.Atoi(s)
		if err != nil {
			fmt.Fprintf(stderr, "labwhy: -mutants: %q is not a mutant id\n", s)
			return 2
		}
		ids = append(ids, id)
	}
	var first []string
	if f.first != "" {
		first = strings.Split(f.first, ",")
	}
	if err := mutation.ServeGrades(ids, depth, first, stdout); err != nil {
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

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
