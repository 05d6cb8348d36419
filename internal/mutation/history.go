package mutation

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"outboxlab/scenarios"
)

// History is what an earlier analysis saved (docs/why.results.json): a
// result per mutant, each with its key and the hash of its file when it
// was graded. It makes a run cheaper in two ways: the matrix rows that
// caught the most mutants before run first (Order), and a mutant it
// knows to be equivalent, in a file unchanged since, is not graded again
// (Reuse).
type History struct {
	byKey map[string][]Result
	all   []Result
}

// NewHistory indexes saved results.
func NewHistory(saved []Result) History {
	h := History{byKey: map[string][]Result{}, all: saved}
	for _, r := range saved {
		h.byKey[r.Key] = append(h.byKey[r.Key], r)
	}
	return h
}

// LoadHistory reads saved results from file; a file that does not exist
// is an empty history.
func LoadHistory(file string) (History, error) {
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return NewHistory(nil), nil
	}
	if err != nil {
		return History{}, fmt.Errorf("mutation: history: %w", err)
	}
	defer f.Close()
	saved, err := ReadResults(f)
	if err != nil {
		return History{}, fmt.Errorf("mutation: history %s: %w", file, err)
	}
	return NewHistory(saved), nil
}

// Len is how many results the history holds.
func (h History) Len() int { return len(h.all) }

// Match returns the saved result of every mutant of ms, by key, with its
// id set (two mutants of one key take the key's results in id order),
// and whether every mutant has one.
func (h History) Match(ms []Mutant) (map[int]Result, bool) {
	taken := map[string]int{}
	out := map[int]Result{}
	all := true
	for _, m := range ms {
		rs := h.byKey[m.Key]
		i := taken[m.Key]
		taken[m.Key]++
		if i >= len(rs) {
			all = false
			continue
		}
		r := rs[i]
		r.ID = m.ID
		out[m.ID] = r
	}
	return out, all
}

// Reuse reports whether m's saved result stands without grading m again:
// the lab did not catch it, Explain says it cannot change what the
// system does (equivalent, or metrics only), and its file is the one it
// was graded in (hash, from Hash).
func Reuse(saved Result, m Mutant, hash string) bool {
	if saved.Killed() || saved.Hash == "" || saved.Hash != hash {
		return false
	}
	k := Explain(m).Kind
	return k == "equivalent" || k == "metrics"
}

// StandsForCheck reports whether saved stands in a score check (labwhy
// --check) without grading its mutant again, whatever its file's hash: a
// survivor does. Graded again, a survivor can only be killed, which
// raises the score; a lab that weakens shows as a killed mutant that
// survives, so every killed mutant is graded again.
func StandsForCheck(saved Result) bool { return !saved.Killed() }

// Order returns the matrix rows (point ids) that caught mutants in the
// history, the one that caught most first (ties in the matrix's order):
// graded in this order, most mutants go red at their first cell. A
// result counts for the row of its first red matrix cell (Result.Point).
func (h History) Order() []string {
	ids := map[string]int{}
	for i, p := range scenarios.Matrix().Points {
		ids[p.ID] = i
	}
	count := map[string]int{}
	for _, r := range h.all {
		if _, known := ids[r.Point]; known {
			count[r.Point]++
		}
	}
	out := make([]string, 0, len(count))
	for p := range count {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b string) int {
		return cmp.Or(count[b]-count[a], ids[a]-ids[b])
	})
	return out
}

// Hash is the hash of a file of the reference path as results save it.
func Hash(root, file string) (string, error) {
	src, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		return "", fmt.Errorf("mutation: %w", err)
	}
	sum := sha256.Sum256(src)
	return hex.EncodeToString(sum[:8]), nil
}

// KeepRows returns fresh, a first-red result, with the rows of saved when
// they still describe it: both killed, the file unchanged (the same
// hash), and fresh's first red row among saved's. A run with --rows
// lists every red cell of the matrix; a routine run, which stops at the
// first, keeps that list for the page instead of replacing it with one
// row.
func KeepRows(saved, fresh Result) Result {
	if !saved.Killed() || !fresh.Killed() || saved.Hash != fresh.Hash || fresh.Crashed != saved.Crashed || len(fresh.Failed) != 1 {
		return fresh
	}
	if !slices.Contains(saved.Failed, fresh.Failed[0]) {
		return fresh
	}
	fresh.Failed = slices.Clone(saved.Failed)
	return fresh
}
