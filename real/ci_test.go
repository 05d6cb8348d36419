package real

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryTestRunsInCI: .ci/run runs the module's tests in two steps,
// every test with -short under the race detector and the tests of the
// long_test.go files once without it. A test that skips under -short and
// lives elsewhere would run in neither, unless another step names it: this
// test lists such tests.
func TestEveryTestRunsInCI(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", ".ci", "run"))
	if err != nil {
		t.Skip("no .ci/run beside the module:", err)
	}
	var ci []byte // its commands, without its comments
	for _, l := range strings.Split(string(script), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			ci = append(ci, l+"\n"...)
		}
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") || filepath.Base(path) == "long_test.go" {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			named := regexp.MustCompile(`\b` + fn.Name.Name + `\b`).Match(ci)
			if strings.HasPrefix(fn.Name.Name, "Test") && skipsUnderShort(fn) && !named {
				t.Errorf("%s: %s skips under -short and is not in a long_test.go, so CI runs it in no step", path, fn.Name.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// skipsUnderShort reports whether fn begins by skipping under -short: a
// call of realtest.Long(t), or if testing.Short() { t.Skip(...) }.
func skipsUnderShort(fn *ast.FuncDecl) bool {
	if fn.Body == nil || len(fn.Body.List) == 0 {
		return false
	}
	switch s := fn.Body.List[0].(type) {
	case *ast.ExprStmt:
		if call, ok := s.X.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				return sel.Sel.Name == "Long"
			}
		}
	case *ast.IfStmt:
		call, ok := s.Cond.(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Short" {
			return false
		}
		for _, st := range s.Body.List {
			if es, ok := st.(*ast.ExprStmt); ok {
				if c, ok := es.X.(*ast.CallExpr); ok {
					if f, ok := c.Fun.(*ast.SelectorExpr); ok && f.Sel.Name == "Skip" {
						return true
					}
				}
			}
		}
	}
	return false
}
