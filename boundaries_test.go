package outboxlab

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"outboxlab/alternatives/listen"
	"outboxlab/effect"
	"outboxlab/scenarios"
)

// TestEveryBoundaryIsClassified: every effect boundary the lab's packages
// declare (an effect.Boundary literal anywhere in their code, tests
// aside) is one the catalogue's registry has, with the same kind, so
// exploration's crash points and the commit-failure boundaries, derived
// from it, cannot miss one unsaid; each boundary has one entry there and
// one exported declaration in the components (a learner's starter may
// declare its own, unexported), so that a crash point has one home.
func TestEveryBoundaryIsClassified(t *testing.T) {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, dir := range labPackages {
		if dir == "real" || strings.HasPrefix(dir, "real/") {
			continue // a module of its own, which declares none: it crosses the components'
		}
		files = append(files, parseDir(t, fset, dir)...)
	}
	for _, p := range boundaryProblems(fset, files, scenarios.Boundaries()) {
		t.Error(p)
	}
}

// TestANewBoundaryIsFound is the scratch copy the test above exists for:
// the relay's file with a boundary added that the registry does not have,
// and with its send declared a commit; a registry without the listener's
// side of an inbox boundary; a registry with two entries of relay.send,
// and the CDC connector declaring relay.send again under its own name
// (as it did until each boundary had one home). Each is named.
func TestANewBoundaryIsFound(t *testing.T) {
	src, err := os.ReadFile("outbox/relay.go")
	if err != nil {
		t.Fatal(err)
	}
	added := strings.Replace(string(src), "var (\n", "var (\n\tBoundaryPurge = effect.Boundary{Process: \"relay\", Effect: \"purge\", Kind: effect.Commit}\n", 1)
	sendAsCommit := strings.Replace(string(src), `Effect: "send", Kind: effect.Send}`, `Effect: "send", Kind: effect.Commit}`, 1)
	for _, c := range []struct {
		name, src string
		want      string
	}{
		{"a boundary added", added, `relay.go:15: relay.purge (commit) is declared here and not in the catalogue's registry`},
		{"a send declared a commit", sendAsCommit, `relay.go:21: relay.send (commit) is declared here and not in the catalogue's registry`},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "outbox/relay.go", c.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := boundaryProblems(fset, []*ast.File{f}, scenarios.Boundaries())
		if len(got) != 1 || !strings.Contains(got[0], c.want) {
			t.Errorf("%s: got %q, want one problem: %s", c.name, got, c.want)
		}
	}
	fset := token.NewFileSet()
	inbox, err := parser.ParseFile(fset, "inbox/consumer.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	noListenerReplay := slices.DeleteFunc(scenarios.Boundaries(), func(s scenarios.BoundarySpec) bool { return s.String() == "listener.replay" })
	if got := boundaryProblems(fset, []*ast.File{inbox}, noListenerReplay); len(got) != 1 || !strings.Contains(got[0], "consumer.replay: listen-to-yourself's listener crosses it as listener.replay") {
		t.Errorf("a registry without the listener's replay: got %q, want it named", got)
	}
	specs := scenarios.Boundaries()
	for i, s := range specs {
		if s.String() == "relay.send" {
			specs = slices.Insert(specs, i+1, scenarios.BoundarySpec{Boundary: s.Boundary})
			break
		}
	}
	if got := boundaryProblems(token.NewFileSet(), nil, specs); len(got) != 1 || !strings.Contains(got[0], "relay.send: two entries in the catalogue's registry") {
		t.Errorf("a registry with relay.send twice: got %q, want it named", got)
	}
	fset = token.NewFileSet()
	relay, err := parser.ParseFile(fset, "outbox/relay.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	cdc, err := parser.ParseFile(fset, "alternatives/cdc/cdc.go", "package cdc\n\nimport \"outboxlab/effect\"\n\n"+
		"var BoundarySend = effect.Boundary{Process: \"relay\", Effect: \"send\", Kind: effect.Send}\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := boundaryProblems(fset, []*ast.File{relay, cdc}, scenarios.Boundaries()); len(got) != 1 ||
		!strings.Contains(got[0], "cdc.go:5: relay.send is declared again as BoundarySend (outbox/relay.go:21") {
		t.Errorf("relay.send declared twice: got %q, want the second declaration named", got)
	}
}

// boundaryProblems returns every boundary declared in files that specs
// do not have, and what specs say of one boundary in two ways.
func boundaryProblems(fset *token.FileSet, files []*ast.File, specs []scenarios.BoundarySpec) []string {
	var out []string
	entries := map[string]bool{}
	for _, s := range specs {
		if s.Kind == "" {
			out = append(out, fmt.Sprintf("%s: no Kind: say what sort of effect it is (effect.Commit, Send, Ack, Call)", s))
		}
		if entries[s.String()] {
			out = append(out, fmt.Sprintf("%s: two entries in the catalogue's registry: one boundary, one entry (scenarios/boundaries.go)", s))
		}
		entries[s.String()] = true
	}
	declared := map[string]string{} // boundary -> where its exported declaration is
	for _, f := range files {
		for _, d := range f.Decls {
			gen, ok := d.(*ast.GenDecl)
			if !ok || gen.Tok != token.VAR {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					lit, ok := valueAt(vs, i).(*ast.CompositeLit)
					if !ok || !isBoundaryType(lit.Type) || !name.IsExported() {
						continue
					}
					b, err := boundaryOf(lit)
					if err != nil {
						continue // named below
					}
					at := fset.Position(lit.Pos())
					here := fmt.Sprintf("%s:%d", filepath.ToSlash(at.Filename), at.Line)
					if first, ok := declared[b.String()]; ok {
						out = append(out, fmt.Sprintf("%s: %s is declared again as %s (%s): one boundary, one declaration; cross the other's variable", here, b, name.Name, first))
						continue
					}
					declared[b.String()] = here + " " + name.Name
				}
			}
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok || !isBoundaryType(lit.Type) {
				return true
			}
			at := fset.Position(lit.Pos())
			b, err := boundaryOf(lit)
			switch {
			case err != nil:
				out = append(out, fmt.Sprintf("%s:%d: %v", at.Filename, at.Line, err))
			case !has(specs, b):
				out = append(out, fmt.Sprintf("%s:%d: %s (%s) is declared here and not in the catalogue's registry: add it to scenarios/boundaries.go, drawn by exploration or saying why not", at.Filename, at.Line, b, b.Kind))
			case filepath.ToSlash(filepath.Dir(at.Filename)) == "inbox" && !has(specs, listen.AsListener(b)):
				out = append(out, fmt.Sprintf("%s:%d: %s: listen-to-yourself's listener crosses it as %s, which sim's registry does not have", at.Filename, at.Line, b, listen.AsListener(b)))
			}
			return true
		})
	}
	return out
}

// valueAt returns the value of vs's i-th name, nil if it has none.
func valueAt(vs *ast.ValueSpec, i int) ast.Expr {
	if i < len(vs.Values) {
		return vs.Values[i]
	}
	return nil
}

// has reports whether specs hold b, its kind the same.
func has(specs []scenarios.BoundarySpec, b effect.Boundary) bool {
	return slices.ContainsFunc(specs, func(s scenarios.BoundarySpec) bool { return s.Boundary == b })
}

// isBoundaryType reports whether a literal's type is effect.Boundary.
func isBoundaryType(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "effect" && sel.Sel.Name == "Boundary"
}

// effectKinds are effect's kinds by their names in the source.
var effectKinds = map[string]effect.Kind{"Commit": effect.Commit, "Send": effect.Send, "Ack": effect.Ack, "Call": effect.Call}

// boundaryOf reads an effect.Boundary literal written with its field
// names, as the components write them.
func boundaryOf(lit *ast.CompositeLit) (effect.Boundary, error) {
	var b effect.Boundary
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return b, fmt.Errorf("an effect.Boundary without its field names: write Process, Effect and Kind")
		}
		key, _ := kv.Key.(*ast.Ident)
		var err error
		switch v := kv.Value.(type) {
		case *ast.BasicLit:
			var s string
			s, err = strconv.Unquote(v.Value)
			switch {
			case key != nil && key.Name == "Process":
				b.Process = s
			case key != nil && key.Name == "Effect":
				b.Effect = s
			default:
				err = fmt.Errorf("a string where no string field is")
			}
		case *ast.SelectorExpr:
			kind, known := effectKinds[v.Sel.Name]
			if !known {
				err = fmt.Errorf("kind %s is not one of effect's", v.Sel.Name)
			}
			b.Kind = kind
		default:
			err = fmt.Errorf("field %s is not a literal", key.Name)
		}
		if err != nil {
			return b, fmt.Errorf("an effect.Boundary the test cannot read: %w", err)
		}
	}
	return b, nil
}

// parseDir parses the Go files of dir but its tests.
func parseDir(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
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
	return files
}
