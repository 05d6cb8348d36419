package outboxlab

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The lab's machinery is kept in rooms with one job each (issue 31): no
// file over maxFileLines lines, and no function of its code over
// maxFuncLines (tests may hold longer tables of cases).
const (
	maxFileLines = 500
	maxFuncLines = 80
)

// machinery are the lab's folders the limits hold for: the simulator, the
// scenarios, the lab's packages, the internal ones, the mistakes and the
// commands. The system under test and the course are written for reading
// and are held to it by review.
var machinery = []string{"sim", "scenarios", "lab", "internal", "mistakes", "cmd", "variant", "lang"}

// roomProblems returns what in one Go file breaks the limits.
func roomProblems(name string, src []byte) ([]string, error) {
	var out []string
	if n := strings.Count(string(src), "\n"); n > maxFileLines {
		out = append(out, fmt.Sprintf("%s: %d lines, more than %d: split it by concern", name, n, maxFileLines))
	}
	if strings.HasSuffix(name, "_test.go") {
		return out, nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return nil, err
	}
	ast.Inspect(f, func(n ast.Node) bool {
		var body *ast.BlockStmt
		what := "a function literal"
		switch fn := n.(type) {
		case *ast.FuncDecl:
			body, what = fn.Body, fn.Name.Name
		case *ast.FuncLit:
			body = fn.Body
		}
		if body == nil {
			return true
		}
		start, end := fset.Position(n.Pos()).Line, fset.Position(body.Rbrace).Line
		if lines := end - start + 1; lines > maxFuncLines {
			out = append(out, fmt.Sprintf("%s:%d: %s has %d lines, more than %d: give its parts names of their own", name, start, what, lines, maxFuncLines))
		}
		return true
	})
	return out, nil
}

// TestTheLabsRoomsStaySmall fails on a file of the lab's machinery over
// maxFileLines lines or a function of its code over maxFuncLines.
func TestTheLabsRoomsStaySmall(t *testing.T) {
	for _, dir := range machinery {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			problems, err := roomProblems(filepath.ToSlash(path), src)
			for _, p := range problems {
				t.Error(p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestARoomTooLargeIsFound is the check failing: a function one line over
// the limit, a function literal over it, and a file over its limit are
// each found; a test file's long function is not.
func TestARoomTooLargeIsFound(t *testing.T) {
	fn := func(name string, lines int) string {
		return "func " + name + "() {\n" + strings.Repeat("\t_ = 0\n", lines-2) + "}\n"
	}
	long := "package p\n\n" + fn("ok", maxFuncLines) + fn("tooLong", maxFuncLines+1) +
		"var f = func() {\n" + strings.Repeat("\t_ = 0\n", maxFuncLines-1) + "}\n"
	problems, err := roomProblems("p.go", []byte(long))
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 2 || !strings.Contains(problems[0], "tooLong has 81 lines") || !strings.Contains(problems[1], "a function literal has 81 lines") {
		t.Errorf("long functions: %q, want tooLong and the literal", problems)
	}
	if problems, _ := roomProblems("p_test.go", []byte(long)); len(problems) != 0 {
		t.Errorf("a test file's long functions: %q, want none", problems)
	}
	big := "package p\n" + strings.Repeat("\n", maxFileLines)
	if problems, _ := roomProblems("big.go", []byte(big)); len(problems) != 1 || !strings.Contains(problems[0], "501 lines") {
		t.Errorf("a file of 501 lines: %q, want it found", problems)
	}
}
