// Package shard splits a long run into N shards that run apart (N CI
// jobs, N machines) and reads what the shards wrote back into what the
// unsharded run writes, byte for byte. Three commands shard: labrun
// explore (its schedules), labwhy (the mutants of the reference path)
// and, in the real module, labrun-real matrix (its cells). Each parses
// --shard I/N with Parse, splits by the rule below, and merges with
// Merge or Complete.
//
// # The rule
//
// A run's items are numbered from 0 in the order the unsharded run takes
// them. Taken in that order, costliest first, each item goes to the shard
// that has the least cost so far, the first of equals (ByCost). When every
// item costs the same, as an exploration's schedules and labwhy's mutants
// do (their costs are unknown before they run), that is item k to shard
// k mod N + 1, which Owns says without a list: the schedules of a billion
// runs need none. labrun-real's cells cost what their runs take (a stall
// lasts seconds, a crash point less, a cell the variant never reaches
// nothing), and split by ByCost the shards take about as long.
//
// # Merging
//
// Merge puts the items of all shards back in the unsharded run's order and
// refuses an item two shards hold. Complete checks that files that name
// their shard (labrun explore's JSON) are every shard of one split, once;
// labwhy's results and labrun-real's matrix JSON name none (so that the
// merge writes the unsharded run's bytes) and count what is missing
// against the whole they know.
//
// The real module imports this package: Go lets a package whose import
// path is under outboxlab/ (outboxlab/real/...) import outboxlab/internal,
// whatever module holds it.
package shard

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"outboxlab/lang"
)

// Shard is shard I of N (1 <= I <= N). The zero Shard is the unsharded
// run: it owns every item.
type Shard struct{ I, N int }

// Parse reads --shard I/N. Its error (a lang.Error, in both languages)
// names the text and what is valid.
func Parse(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, lang.Errorf(lang.Text{
			EN: "--shard %q: want I/N with 1 <= I <= N, e.g. 1/2",
			DE: "--shard %q: erwartet I/N mit 1 <= I <= N, z. B. 1/2",
		}, s)
	}
	return Shard{I: i, N: n}, nil
}

// String returns "I/N", as Parse reads it; "" for the unsharded run.
func (s Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// Owns reports whether item k (from 0) is this shard's when every item
// costs the same: k mod N is I-1.
func (s Shard) Owns(k int) bool {
	return s.N == 0 || k%s.N == s.I-1
}

// Count returns how many of items items (numbered 0 to items-1) the shard
// owns.
func (s Shard) Count(items int) int {
	if s.N == 0 {
		return items
	}
	return (items - s.I + s.N) / s.N
}

// ByCost returns the items (their numbers, from 0, in order) this shard
// runs when item k costs costs[k]: the costliest first (in order among
// equals), each to the shard with the least cost so far, the first of
// equals. The split is the same in every shard, and the shards cost about
// as much. With equal costs above 0 it is Owns's.
func (s Shard) ByCost(costs []int) []int {
	order := make([]int, len(costs))
	for k := range costs {
		order[k] = k
	}
	if s.N == 0 {
		return order
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(costs[b], costs[a]) })
	load := make([]int, s.N)
	var mine []int
	for _, k := range order {
		least := 0
		for j := range load {
			if load[j] < load[least] {
				least = j
			}
		}
		load[least] += costs[k]
		if least == s.I-1 {
			mine = append(mine, k)
		}
	}
	slices.Sort(mine)
	return mine
}

// TwiceError is Merge's error: two shards (or one) hold the same item.
type TwiceError[T any] struct {
	// Item is the second of the two; First and Second are the parts
	// (their indices in Merge's parts) that hold it.
	Item          T
	First, Second int
}

func (e *TwiceError[T]) Error() string {
	return fmt.Sprintf("an item is in two shards (parts %d and %d)", e.First+1, e.Second+1)
}

// Merge returns the items of parts (one part per shard, in any order) in
// the unsharded run's order, by position (an item's place in that order).
// An item whose position two parts hold is a *TwiceError[T].
func Merge[T any](parts [][]T, position func(T) int) ([]T, error) {
	type held struct {
		item T
		part int
	}
	var all []held
	for p, items := range parts {
		for _, item := range items {
			all = append(all, held{item, p})
		}
	}
	slices.SortStableFunc(all, func(a, b held) int { return cmp.Compare(position(a.item), position(b.item)) })
	var merged []T // nil for no items, as the unsharded run's
	for k, h := range all {
		if k > 0 && position(h.item) == position(all[k-1].item) {
			return nil, &TwiceError[T]{Item: h.item, First: all[k-1].part, Second: h.part}
		}
		merged = append(merged, h.item)
	}
	return merged, nil
}

// Complete checks that shards, read from the files names (one each), are
// every shard of one split, each once. Its error (a lang.Error) names the
// files.
func Complete(names []string, shards []Shard) error {
	if len(shards) == 0 {
		return nil
	}
	n := shards[0].N
	file := map[int]string{} // shard I: the file that holds it
	for k, s := range shards {
		if s.N != n {
			return lang.Errorf(lang.Text{
				EN: "%s is shard %s, but %s of %d shards: merge the shards of one split",
				DE: "%s ist Teil %s, aber %s einer von %d Teilen: nur die Teile einer Aufteilung zusammenfügen",
			}, names[k], s, names[0], n)
		}
		if other, ok := file[s.I]; ok {
			return lang.Errorf(lang.Text{
				EN: "shard %s is given twice (%s and %s)",
				DE: "Teil %s ist zweimal angegeben (%s und %s)",
			}, s, other, names[k])
		}
		file[s.I] = names[k]
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if _, ok := file[i]; !ok {
			missing = append(missing, Shard{I: i, N: n}.String())
		}
	}
	if len(missing) > 0 {
		return lang.Errorf(lang.Text{
			EN: "shard(s) %s missing: merge all %d shards",
			DE: "Teil(e) %s fehlen: alle %d Teile zusammenfügen",
		}, strings.Join(missing, ", "), n)
	}
	return nil
}
