package outboxlab_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// floors are the layers of the house, lowest first, each of one or more
// rooms: a package may import the packages of its own room and of the
// floors below, never one above or in another room of its floor. A
// package's room is that of the longest folder prefix below that names
// it; a package no entry names is an error, so a new folder is placed on
// purpose. The judge may import the judged, never the other way, and the
// simulator's machinery imports no variant: they are two rooms of one
// floor, and the catalogue above both names them.
var floors = []struct {
	floor   int
	name    string
	folders []string
}{
	{0, "tools every floor uses", []string{"lang", "internal/golden", "internal/longtest", "internal/mutation/on"}},
	{1, "the reference", []string{"domain", "store", "effect", "broker", "outbox", "orders", "inbox", "billing", "insurance"}},
	{2, "the contract between the judged and the lab", []string{"variant"}},
	{3, "what else is judged: the alternatives, the mistakes, broken frames", []string{"alternatives", "mistakes", "variant/varianttest"}},
	{3, "the simulator and its checker", []string{"sim"}},
	{4, "the catalogue: rows, crash points, stories, the lab's variants", []string{"scenarios"}},
	{5, "the judge's doors: exploration, the grader, reports, the command line", []string{"lab", "internal"}},
	{6, "the commands", []string{"cmd"}},
	{7, "the course: exercises and a course's own labrun", []string{"exercises", "examples"}},
	{8, "the real parts (a module of their own)", []string{"real"}},
}

// roomOf returns the room (an index of floors) of the package in folder
// dir, -1 if no room names it.
func roomOf(dir string) int {
	best, at := -1, -1
	for i, f := range floors {
		for _, folder := range f.folders {
			if (dir == folder || strings.HasPrefix(dir, folder+"/")) && len(folder) > best {
				best, at = len(folder), i
			}
		}
	}
	return at
}

// arrowsUp returns every import of a package (folder → the folders of the
// module's packages it imports, non-test files only) that runs to a higher
// floor, and every folder no floor names.
func arrowsUp(imports map[string][]string) []string {
	var out []string
	dirs := make([]string, 0, len(imports))
	for dir := range imports {
		dirs = append(dirs, dir)
	}
	slices.Sort(dirs)
	for _, dir := range dirs {
		from := roomOf(dir)
		if from < 0 {
			out = append(out, fmt.Sprintf("%s: on no floor (name it in layers_test.go's floors)", dir))
			continue
		}
		for _, to := range imports[dir] {
			switch r := roomOf(to); {
			case r < 0 || r == from || floors[r].floor < floors[from].floor:
			case floors[r].floor == floors[from].floor:
				out = append(out, fmt.Sprintf("%s (%s) imports %s (%s): an arrow across the floor", dir, floors[from].name, to, floors[r].name))
			default:
				out = append(out, fmt.Sprintf("%s (%s) imports %s (%s): an arrow up", dir, floors[from].name, to, floors[r].name))
			}
		}
	}
	return out
}

// moduleImports reads the import clauses of every non-test Go file below
// the module's root (real/ included, testdata and _solutions left out).
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	imports := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if dir == "." {
			return nil // the root package holds documentation alone
		}
		if _, ok := imports[dir]; !ok {
			imports[dir] = nil
		}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if rest, ok := strings.CutPrefix(p, "outboxlab/"); ok && !slices.Contains(imports[dir], rest) {
				imports[dir] = append(imports[dir], rest)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return imports
}

// TestArrowsPointDown holds the tree to its floors: no package imports one
// on a floor above its own (go list -deps shows the same arrows).
func TestArrowsPointDown(t *testing.T) {
	imports := moduleImports(t)
	if len(imports) < 40 {
		t.Fatalf("read the imports of %d packages; the walk went wrong", len(imports))
	}
	for _, problem := range arrowsUp(imports) {
		t.Error(problem)
	}
}

// TestAnArrowUpIsFound: the arrows the tree once had (the simulator naming
// a mistake, the contract naming an alternative, a mistake importing the
// checker) and a package on no floor are each found.
func TestAnArrowUpIsFound(t *testing.T) {
	for _, c := range []struct {
		imports map[string][]string
		want    string
	}{
		{map[string][]string{"sim": {"mistakes"}}, "sim (the simulator and its checker) imports mistakes"},
		{map[string][]string{"variant": {"alternatives/cdc"}}, "variant (the contract between the judged and the lab) imports alternatives/cdc"},
		{map[string][]string{"mistakes": {"sim/check"}}, "mistakes (what else is judged: the alternatives, the mistakes, broken frames) imports sim/check"},
		{map[string][]string{"sim/check": {"scenarios"}}, "imports scenarios"},
		{map[string][]string{"newthing": nil}, "newthing: on no floor"},
	} {
		got := arrowsUp(c.imports)
		if len(got) != 1 || !strings.Contains(got[0], c.want) {
			t.Errorf("%v: got %q, want one problem naming %q", c.imports, got, c.want)
		}
	}
	if got := arrowsUp(map[string][]string{"scenarios": {"sim", "mistakes", "variant"}, "lab/cli": {"scenarios"}}); len(got) != 0 {
		t.Errorf("arrows down reported: %q", got)
	}
}
