package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"outboxlab/scenarios"
)

// sources parses the package's Go files, tests left out.
func sources(t *testing.T) (*token.FileSet, []*ast.File) {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return fset, files
}

// TestEveryVariantPointAndStoryHasGerman: what labrun list and labrun
// scenario print for the shipped catalogue exists in German.
func TestEveryVariantPointAndStoryHasGerman(t *testing.T) {
	for _, v := range slices.Concat(scenarios.Variants(), scenarios.Extras(), scenarios.StoryVariants()) {
		if v.Summary.DE == "" {
			t.Errorf("variant %s has no German summary", v.Name)
		}
	}
	for _, s := range scenarios.Catalogue() {
		if s.Summary.DE == "" || s.Narrative.DE == "" {
			t.Errorf("scenario %s has no German summary or narrative (summary-de and #de lines)", s.Name)
		}
	}
}

// TestEveryTextHasItsGerman reads the package's source: every lang.Text
// written out in it has a German (DE) beside its English, so that
// --lang de gets no English sentence from a text written since lang came.
func TestEveryTextHasItsGerman(t *testing.T) {
	fset, files := sources(t)
	texts := 0
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok || len(lit.Elts) == 0 {
				return true
			}
			if sel, ok := lit.Type.(*ast.SelectorExpr); !ok || sel.Sel.Name != "Text" {
				return true
			}
			texts++
			for _, e := range lit.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok && kv.Key.(*ast.Ident).Name == "DE" {
					if s, ok := kv.Value.(*ast.BasicLit); !ok || len(s.Value) > 2 {
						return true
					}
				}
			}
			t.Errorf("%s: a lang.Text without its German", fset.Position(lit.Pos()))
			return true
		})
	}
	if texts < 20 {
		t.Errorf("found %d lang.Text literals; the scan is broken", texts)
	}
}
