package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"outboxlab/internal/mutation"
	"outboxlab/internal/shard"
)

// merge merges the results of labwhy --shard runs into the unsharded
// run's: the results file byte for byte (a mutant in two shards, or one
// of another version of the reference, is refused), its summary and its
// pages.
func merge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("labwhy merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	results := fs.String("results", "", "write the merged results here (default: docs/why.results.json when the shards cover the whole reference path)")
	out := fs.String("out", "", "write the annotated reference here (default: docs/why.md and docs/why.html for the whole path)")
	check := fs.Bool("check", false, "write no page and no results; exit 1 when the score is below --history's")
	history := fs.String("history", savedResults, "the saved results --check compares with")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "labwhy merge: name the shards' results (labwhy --shard I/N --results FILE)")
		return 2
	}
	all, err := mutation.Generate(".", mutation.Reference)
	if err != nil {
		fmt.Fprintf(stderr, "labwhy merge: %v\n", err)
		return 1
	}
	merged, files, err := readShards(fs.Args(), all)
	if err != nil {
		fmt.Fprintf(stderr, "labwhy merge: %v\n", err)
		return 2
	}
	ms, err := mutation.Generate(".", files)
	if err != nil {
		fmt.Fprintf(stderr, "labwhy merge: %v\n", err)
		return 1
	}
	if len(merged) != len(ms) {
		fmt.Fprintf(stderr, "labwhy merge: the shards hold %d results of the %d mutants of %d files: a shard is missing\n", len(merged), len(ms), len(files))
		return 2
	}
	a := analysis{files: files, depth: mutation.Full, part: shard.Shard{I: 1, N: 1}, stdout: stdout, stderr: stderr,
		flags: flags{out: *out, results: *results, check: *check, history: *history}}
	a.plan()
	hist, err := mutation.LoadHistory(*history)
	if err != nil {
		fmt.Fprintf(stderr, "labwhy merge: %v\n", err)
		return 1
	}
	code, err := a.finish(ms, byID(ms, merged), hist, 0)
	if err != nil {
		fmt.Fprintf(stderr, "labwhy merge: %v\n", err)
		return 1
	}
	return code
}

// readShards reads the shards' results and checks each against the
// mutants of the whole reference path (all): its id names a mutant of
// the same key, in no other shard (shard.Merge). It returns the results
// by id and the files they cover.
func readShards(names []string, all []mutation.Mutant) (map[int]mutation.Result, []mutation.File, error) {
	parts := make([][]mutation.Result, len(names))
	for k, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return nil, nil, err
		}
		rs, err := mutation.ReadResults(f)
		f.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, r := range rs {
			if r.ID < 0 || r.ID >= len(all) || all[r.ID].Key != r.Key {
				return nil, nil, fmt.Errorf("%s: mutant %d (%s) is not this reference's: grade the shards again", name, r.ID, r.Key)
			}
		}
		parts[k] = rs
	}
	results, err := shard.Merge(parts, func(r mutation.Result) int { return r.ID })
	if twice, ok := errors.AsType[*shard.TwiceError[mutation.Result]](err); ok {
		return nil, nil, fmt.Errorf("mutant %d (%s) is in two shards, %s and %s", twice.Item.ID, twice.Item.Key, names[twice.First], names[twice.Second])
	} else if err != nil {
		return nil, nil, err
	}
	merged := map[int]mutation.Result{}
	covered := map[string]bool{}
	for _, r := range results {
		merged[r.ID] = r
		covered[all[r.ID].File] = true
	}
	var files []mutation.File
	for _, f := range mutation.Reference {
		if covered[f.Path] {
			files = append(files, f)
		}
	}
	return merged, files, nil
}
