package outboxlab

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// labPackages are the lab's own packages, every one of which doc.go
// lists. A directory with Go code that is not here is a learner's (a
// package of your own, anywhere in the module): the layout test leaves it
// alone. A new package of the lab goes here and into doc.go; CI runs the
// test with OUTBOXLAB_LAYOUT=strict, which fails on any package not here.
var labPackages = []string{
	"alternatives/cdc", "alternatives/gapfetch", "alternatives/gapsnapshot", "alternatives/legacycdc", "alternatives/listen", "alternatives/skiplocked", "alternatives/synccall", "alternatives/twophase", "billing", "broker",
	"cmd/labrun", "cmd/labwhy", "domain", "effect", "effect/effecttest",
	"examples/courselab", "examples/courselab/course",
	"exercises", "exercises/dedup", "exercises/frame", "exercises/internal/startertest", "exercises/ordering", "exercises/recovery", "exercises/sendfirst",
	"inbox", "insurance",
	"internal/backlog", "internal/golden", "internal/metrics", "internal/mutation", "internal/mutation/on", "internal/report", "internal/longtest", "internal/shard",
	"sim/check", "lab/cli", "lab/explore", "lab/grade", "lab/labtest", "lang", "lang/langtest", "variant", "lab/verdict", "variant/varianttest",
	"mistakes", "orders", "outbox", "scenarios", "sim", "store",
	"real", "real/cleanup", "real/cmd/labrun-real", "real/internal/realtest", "real/kafkalab", "real/pglab", "real/sqlitelab",
	"real/verify", "real/verify/relays/claim-without-lock", "real/verify/relays/mark-before-send", "real/verify/relays/no-backoff", "real/verify/relays/no-fencing", "real/verify/relays/no-inflight-recovery", "real/verify/relays/recover-all", "real/verify/relays/reference", "real/verify/relays/relay", "real/verify/relays/unordered-claim",
	"real/verify/relays/crc32-partitioner", "real/verify/relays/ignores-sigterm", "real/verify/relays/no-reconnect", "real/verify/relays/release-all", "real/verify/relays/slot-without-send",
	"real/verify/consumers/consumer", "real/verify/consumers/reference",
	"real/verify/consumers/arrival-order", "real/verify/consumers/auto-commit", "real/verify/consumers/dead-letters-transient", "real/verify/consumers/dedup-outside-tx",
	"real/verify/consumers/dies-on-fetch-error", "real/verify/consumers/float-amounts", "real/verify/consumers/max-version", "real/verify/consumers/no-dedup",
	"real/verify/consumers/no-version-check", "real/verify/consumers/retries-poison", "real/verify/consumers/sticky-memory", "real/verify/consumers/zombie-memory",
	"real/verify/consumers/ignores-sigterm", "real/verify/consumers/dead-letters-key", "real/verify/consumers/lenient-amounts", "real/verify/consumers/skips-unknown-type",
	"real/verify/consumers/commits-polled-on-stop", "real/verify/consumers/gives-no-partition-back",
}

// strictLayout is OUTBOXLAB_LAYOUT=strict, as CI sets it: a clean checkout
// has no learner's package, so every directory with Go code must be one of
// the lab's.
func strictLayout() bool { return os.Getenv("OUTBOXLAB_LAYOUT") == "strict" }

// TestTheRootDocListsEveryPackage: the package list in doc.go names every
// package of the lab (a nested one by its last element, or its path), and
// nothing in the tree is left out but a learner's own packages.
func TestTheRootDocListsEveryPackage(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := goDirs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range layoutProblems(string(doc), dirs, labPackages, strictLayout()) {
		t.Error(p)
	}
	for _, d := range dirs {
		if !slices.Contains(labPackages, d) && !strictLayout() {
			t.Logf("%s: a package of your own (not the lab's): left alone", d)
		}
	}
}

// TestALearnersPackageLeavesTheLayoutTestGreen builds a tree as a learner's
// clone has it: the lab's packages, a package of the learner's own at the
// top and one deeper, and a module of the learner's own inside. Nothing of
// the learner's is a problem; a lab package that doc.go leaves out is one
// (and in CI's strict mode, so is the learner's).
func TestALearnersPackageLeavesTheLayoutTestGreen(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		full := filepath.Join(root, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range labPackages {
		write(p+"/x.go", "package x\n")
	}
	write("mine/relay_test.go", "package mine\n")
	write("solutions/week2/relay.go", "package week2\n")
	write("mylab/go.mod", "module mylab\n")
	write("mylab/relay.go", "package mylab\n")
	dirs, err := goDirs(root)
	if err != nil {
		t.Fatal(err)
	}
	if problems := layoutProblems(string(doc), dirs, labPackages, false); len(problems) > 0 {
		t.Errorf("a learner's packages fail the layout test:\n%s", strings.Join(problems, "\n"))
	}
	if got := layoutProblems(string(doc), dirs, labPackages, true); !slices.Equal(got, []string{
		"mine: a directory with Go code that is not one of the lab's packages (list it in doc.go and in labPackages)",
		"solutions/week2: a directory with Go code that is not one of the lab's packages (list it in doc.go and in labPackages)",
	}) {
		t.Errorf("strict: got %q, want the learner's two packages (their own module is not the lab's business)", got)
	}
	withoutStore := strings.Replace(string(doc), "//\tstore ", "//\tstorage ", 1)
	if got := layoutProblems(withoutStore, dirs, labPackages, false); !slices.Equal(got, []string{"doc.go does not list package store"}) {
		t.Errorf("doc.go without store: got %q, want it named", got)
	}
	if got := layoutProblems(string(doc), dirs[1:], labPackages, false); len(got) != 1 || !strings.Contains(got[0], "no Go code") {
		t.Errorf("a lab package gone from the tree: got %q, want it named", got)
	}
}

// goDirs returns every directory under root with Go files, as slash paths
// relative to root, sorted. A module of its own inside root (a go.mod) is
// not this module's, and its directories are not returned, but for the
// lab's real/.
func goDirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || path == root {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || d.Name() == "testdata" { // as the go tool: no package
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "real" {
			return filepath.SkipDir
		}
		if gofiles, _ := filepath.Glob(filepath.Join(path, "*.go")); len(gofiles) > 0 {
			dirs = append(dirs, rel)
		}
		return nil
	})
	slices.Sort(dirs)
	return dirs, err
}

// layoutProblems returns what is wrong with doc.go's list: a lab package
// it does not name, a lab package that is gone from the tree, and, if
// strict, a directory with Go code that is not the lab's.
func layoutProblems(doc string, dirs, lab []string, strict bool) []string {
	listed := listedNames(doc)
	var problems []string
	for _, p := range lab {
		switch {
		case !slices.Contains(dirs, p):
			problems = append(problems, fmt.Sprintf("%s: one of labPackages, but no Go code there (moved? update labPackages and doc.go)", p))
		case !listedAs(listed, p):
			problems = append(problems, "doc.go does not list package "+p)
		}
	}
	if strict {
		for _, d := range dirs {
			if !slices.Contains(lab, d) {
				problems = append(problems, d+": a directory with Go code that is not one of the lab's packages (list it in doc.go and in labPackages)")
			}
		}
	}
	return problems
}

// listedAs reports whether doc.go names the package at path: by its path,
// or nested under its parent by the rest of it ("labrun-real",
// "cmd/labrun-real" for real/cmd/labrun-real).
func listedAs(listed map[string]bool, path string) bool {
	for name := range listed {
		if name != "" && (path == name || strings.HasSuffix(path, "/"+name)) {
			return true
		}
	}
	return false
}

// listedNames returns the names doc.go's list lines start with: the first
// column of a "//\t" line ("store", "cmd/labrun", "dedup, ordering").
func listedNames(doc string) map[string]bool {
	names := map[string]bool{}
	for _, line := range strings.Split(doc, "\n") {
		rest, ok := strings.CutPrefix(line, "//\t")
		if !ok {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimSpace(rest), "  ")
		for _, name := range strings.Split(first, ",") {
			names[strings.TrimSpace(name)] = true
		}
	}
	return names
}
