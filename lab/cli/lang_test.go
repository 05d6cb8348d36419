package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
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

// TestEveryTranslatedTextIsInTheCatalogue reads the package's source: every
// text given to tr or trf must have its German in the catalogue, so that
// --lang de never falls back to English for a text marked for translation.
func TestEveryTranslatedTextIsInTheCatalogue(t *testing.T) {
	fset, files := sources(t)
	marked := 0
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			if id, ok := call.Fun.(*ast.Ident); !ok || (id.Name != "tr" && id.Name != "trf") {
				return true
			}
			marked++
			var text string
			switch arg := call.Args[1].(type) {
			case *ast.BasicLit:
				text, _ = strconv.Unquote(arg.Value)
			default:
				return true // a constant or a variable: checked below
			}
			if _, ok := catalogue[text]; !ok {
				t.Errorf("%s: no German for %q", fset.Position(call.Pos()), text)
			}
			return true
		})
	}
	if marked < 50 {
		t.Errorf("found %d texts marked for translation; the scan is broken", marked)
	}
	// The texts tr gets from variables and constants.
	dynamic := []string{"crash", "fault", disagrees}
	for _, n := range nextSteps {
		dynamic = append(dynamic, n[1])
	}
	for _, text := range dynamic {
		if _, ok := catalogue[text]; !ok {
			t.Errorf("no German for %q", text)
		}
	}
}

// TestEveryVariantPointAndStoryHasGerman: what labrun list and labrun
// scenario print for the shipped catalogue exists in German.
func TestEveryVariantPointAndStoryHasGerman(t *testing.T) {
	for _, v := range scenarios.Variants() {
		if v.SummaryDE == "" {
			t.Errorf("variant %s has no SummaryDE", v.Name)
		}
	}
	for _, s := range scenarios.Catalogue() {
		if s.SummaryDE == "" || s.NarrativeDE == "" {
			t.Errorf("scenario %s has no German summary or narrative (summary-de and #de lines)", s.Name)
		}
	}
}

func TestLanguageFromTheEnvironment(t *testing.T) {
	cases := []struct {
		lcAll, lang string
		want        bool
	}{
		{"", "", false},
		{"", "de_DE.UTF-8", true},
		{"", "en_US.UTF-8", false},
		{"de_AT.UTF-8", "en_US.UTF-8", true},
		{"C", "de_DE.UTF-8", false}, // LC_ALL wins
	}
	for _, c := range cases {
		t.Setenv("LC_ALL", c.lcAll)
		t.Setenv("LANG", c.lang)
		if got := germanEnv(); got != c.want {
			t.Errorf("LC_ALL=%q LANG=%q: German %v, want %v", c.lcAll, c.lang, got, c.want)
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
