package outboxlab_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// simulatorWords are what only a simulator asks of a relay or a consumer:
// when it wants to be woken, which role's crash points it crosses, hooks.
var simulatorWords = []string{"Wake", "Role", "Sim", "Hook", "Schedul", "CrashPoint"}

// TestTheReferenceHasNoSimulatorHooks: what go doc shows of the reference
// a learner copies (outbox, inbox) is what a production relay or consumer
// has; what the simulator needs (when a relay wants to wake, the crash
// points of a consumer in another role) lives in variant's adapters.
func TestTheReferenceHasNoSimulatorHooks(t *testing.T) {
	for _, dir := range []string{"outbox", "inbox"} {
		for _, name := range exportedNames(t, dir) {
			for _, w := range simulatorWords {
				if strings.Contains(name, w) {
					t.Errorf("go doc outboxlab/%s shows %s: a simulator's word (%s); move it into an adapter in package variant", dir, name, w)
				}
			}
		}
	}
}

// exportedNames returns what go doc shows of the package in dir: its
// exported constants, variables, functions, types, their methods and
// their exported fields, as "Type.Name" where they belong to a type.
func exportedNames(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, "outboxlab/"+dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			names = append(names, v.Names...)
		}
	}
	values(pkg.Consts)
	values(pkg.Vars)
	for _, f := range pkg.Funcs {
		names = append(names, f.Name)
	}
	for _, typ := range pkg.Types {
		names = append(names, typ.Name)
		values(typ.Consts)
		values(typ.Vars)
		for _, f := range append(typ.Funcs, typ.Methods...) {
			names = append(names, typ.Name+"."+f.Name)
		}
		for _, spec := range typ.Decl.Specs {
			st, ok := spec.(*ast.TypeSpec).Type.(*ast.StructType)
			if !ok {
				continue
			}
			for _, field := range st.Fields.List {
				for _, n := range field.Names {
					if n.IsExported() {
						names = append(names, typ.Name+"."+n.Name)
					}
				}
			}
		}
	}
	if len(names) == 0 {
		t.Fatalf("%s: no exported names found", dir)
	}
	return names
}
