package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"outboxlab/lab/explore"
	"outboxlab/lab/lang"
	"outboxlab/lab/variant"
	"outboxlab/scenarios"
	"outboxlab/sim"
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

// parseShard reads --shard I/N.
func parseShard(s string) (int, int, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, usagef(lang.Text{
			EN: "--shard %q: want I/N with 1 <= I <= N, e.g. 1/3",
			DE: "--shard %q: erwartet I/N mit 1 <= I <= N, z. B. 1/3",
		}, s)
	}
	return i, n, nil
}

// runExploreShard runs shard of shards of an exploration and writes what
// it found as JSON.
func runExploreShard(stdout io.Writer, v variant.Variant, runs int, seed uint64, shard, shards int) error {
	mine := (runs - shard + shards) / shards // the schedules numbered shard modulo shards
	part, err := explore.ExploreShard(v, runs, seed, shard, shards, explore.Options{Progress: progressLine(mine)})
	if err != nil {
		return err
	}
	out := exploreShard{Variant: v.Name, Runs: runs, Seed: seed, Shard: fmt.Sprintf("%d/%d", shard, shards),
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
	byShard := map[int]string{}
	n := 0
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
		i, of, err := parseShard(sh.Shard)
		if err != nil {
			return nil, usagef(lang.Text{EN: "%s is not the JSON of labrun explore --shard: shard %q", DE: "%s ist nicht das JSON von labrun explore --shard: Teil %q"}, file, sh.Shard)
		}
		first := shards[0]
		if sh.Variant != first.Variant || sh.Runs != first.Runs || sh.Seed != first.Seed {
			return nil, usagef(lang.Text{
				EN: "%s explored --variant %s --runs %d --seed %d, but %s --variant %s --runs %d --seed %d: merge the shards of one exploration",
				DE: "%s erkundete --variant %s --runs %d --seed %d, aber %s --variant %s --runs %d --seed %d: nur die Teile einer Exploration zusammenfügen",
			}, files[0], first.Variant, first.Runs, first.Seed, file, sh.Variant, sh.Runs, sh.Seed)
		}
		if k == 0 {
			n = of
		} else if of != n {
			return nil, usagef(lang.Text{
				EN: "%s is shard %s, but %s of %d shards: merge the shards of one split",
				DE: "%s ist Teil %s, aber %s einer von %d Teilen: nur die Teile einer Aufteilung zusammenfügen",
			}, file, sh.Shard, files[0], n)
		}
		if other, ok := byShard[i]; ok {
			return nil, usagef(lang.Text{
				EN: "shard %s is given twice (%s and %s)",
				DE: "Teil %s ist zweimal angegeben (%s und %s)",
			}, sh.Shard, other, file)
		}
		byShard[i] = file
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if _, ok := byShard[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return nil, usagef(lang.Text{
			EN: "shard(s) %s missing: merge all %d shards",
			DE: "Teil(e) %s fehlen: alle %d Teile zusammenfügen",
		}, strings.Join(missing, ", "), n)
	}
	return shards, nil
}
