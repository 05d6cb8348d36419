package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"slices"

	"outboxlab/internal/shard"
	"outboxlab/lab/explore"
	"outboxlab/lang"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// exploreShard is the JSON of `labrun explore --shard I/N --format json`:
// what one shard's schedules found, for labrun explore merge.
type exploreShard struct {
	Variant string `json:"variant"`
	Runs    int    `json:"runs"`
	Seed    uint64 `json:"seed"`
	Shard   string `json:"shard"`
	// Tried is how many of the shard's schedules ran; Broken the numbers
	// of its first broken ones (at most explore.Shrunk, unshrunk).
	Tried  int   `json:"tried"`
	Broken []int `json:"broken"`
	// Situations are, for each situation, the numbers of the schedules
	// tried that reached it.
	Situations map[string][]int `json:"situations"`
}

// runExploreShard runs one shard of an exploration and writes what it
// found as JSON.
func runExploreShard(stdout io.Writer, v variant.Variant, runs int, seed uint64, sh shard.Shard) error {
	part, err := explore.ExploreShard(v, runs, seed, sh, explore.Options{Progress: progressLine(sh.Count(runs))})
	if err != nil {
		return err
	}
	out := exploreShard{Variant: v.Name, Runs: runs, Seed: seed, Shard: sh.String(),
		Tried: part.Tried, Broken: part.Broken, Situations: map[string][]int{}}
	if out.Broken == nil {
		out.Broken = []int{}
	}
	for s, numbers := range part.Reached {
		out.Situations[string(s)] = numbers
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return err
	}
	if len(part.Broken) > 0 && v.Correct() {
		return errMismatch
	}
	return nil
}

// runExploreMerge merges the JSON of labrun explore --shard runs into
// what the unsharded run writes.
func runExploreMerge(args []string, stdout io.Writer) error {
	fs := newFlags("explore merge", "FILE...", lang.Text{
		EN: "Merges the JSON of `labrun explore --shard I/N --format json` runs, one file per shard, into what the unsharded exploration writes: its JSON byte for byte. The first broken schedules of all shards are shrunk here, as the unsharded run shrinks them.",
		DE: "Fügt das JSON von Läufen `labrun explore --shard I/N --format json`, eine Datei pro Teil, zu dem zusammen, was die ungeteilte Exploration schreibt: ihr JSON Byte für Byte. Die ersten gescheiterten Abläufe aller Teile werden hier verkleinert, wie der ungeteilte Lauf sie verkleinert.",
	}, stdout)
	format := fs.formatFlag("json", "text", "html")
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef(lang.Text{
			EN: "name the shards' JSON files (labrun explore --variant V --shard I/N --format json > FILE)",
			DE: "die JSON-Dateien der Teile angeben (labrun explore --variant V --shard I/N --format json > DATEI)",
		})
	}
	shards, err := readShards(files)
	if err != nil {
		return err
	}
	first := shards[0]
	v, err := scenarios.FindMatrixVariant(first.Variant)
	if err != nil {
		return usageFrom(err)
	}
	parts := make([]explore.Part, len(shards))
	for k, sh := range shards {
		parts[k] = explore.Part{Tried: sh.Tried, Broken: sh.Broken, Reached: map[sim.Situation][]int{}}
		for s, numbers := range sh.Situations {
			parts[k].Reached[sim.Situation(s)] = numbers
		}
		if !slices.IsSorted(sh.Broken) {
			return usagef(lang.Text{EN: "%s is not the JSON of labrun explore --shard: broken out of order", DE: "%s ist nicht das JSON von labrun explore --shard: broken nicht geordnet"}, files[k])
		}
	}
	f, reached, err := explore.Merge(v, first.Runs, first.Seed, parts, explore.Options{})
	if err != nil {
		return err
	}
	return writeExplore(stdout, format.value, v, first.Runs, first.Seed, f, reached)
}

// readShards reads the shards' JSON files and refuses shards of
// different explorations or splits, a shard given twice and a missing one.
func readShards(files []string) ([]exploreShard, error) {
	shards := make([]exploreShard, len(files))
	split := make([]shard.Shard, len(files))
	for k, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, usagef(lang.Text{EN: "%s: %v", DE: "%s: %v"}, file, err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		sh := &shards[k]
		if err := dec.Decode(sh); err != nil {
			return nil, usagef(lang.Text{EN: "%s is not the JSON of labrun explore --shard: %v", DE: "%s ist nicht das JSON von labrun explore --shard: %v"}, file, err)
		}
		if split[k], err = shard.Parse(sh.Shard); err != nil {
			return nil, usagef(lang.Text{EN: "%s is not the JSON of labrun explore --shard: shard %q", DE: "%s ist nicht das JSON von labrun explore --shard: Teil %q"}, file, sh.Shard)
		}
		first := shards[0]
		if sh.Variant != first.Variant || sh.Runs != first.Runs || sh.Seed != first.Seed {
			return nil, usagef(lang.Text{
				EN: "%s explored --variant %s --runs %d --seed %d, but %s --variant %s --runs %d --seed %d: merge the shards of one exploration",
				DE: "%s erkundete --variant %s --runs %d --seed %d, aber %s --variant %s --runs %d --seed %d: nur die Teile einer Exploration zusammenfügen",
			}, files[0], first.Variant, first.Runs, first.Seed, file, sh.Variant, sh.Runs, sh.Seed)
		}
	}
	if err := shard.Complete(files, split); err != nil {
		return nil, usageFrom(err)
	}
	return shards, nil
}
