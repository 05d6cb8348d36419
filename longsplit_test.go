package outboxlab_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestEveryLongTestRunsInOneStep keeps the split between go test ./...
// and .ci/run's long steps honest (package internal/longtest): every
// longtest.Long or longtest.Only call is in a test function of its own
// and names one step of .ci/run that runs the tests it names (run_long),
// so that each exhaustive form runs in exactly one CI step, and nothing
// else reads the switch.
func TestEveryLongTestRunsInOneStep(t *testing.T) {
	script, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (path == "real" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			src, err := os.ReadFile(path)
			files[path] = string(src)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	problems, steps := longProblems(files, string(script))
	for _, p := range problems {
		t.Error(p)
	}
	for _, s := range steps {
		t.Log(s)
	}
}

// TestLongSplitProblemsAreFound: the check above, given a test that names
// a step .ci/run does not have, a step that does not run its tests, a
// call outside a test function, a test that names two steps, a name a
// step would run twice, and a test that reads the switch itself, says so.
func TestLongSplitProblemsAreFound(t *testing.T) {
	const script = `
step_long_a() {
  run_long long_a
}
step_long_b() {
  echo nothing
}
`
	test := func(body string) string {
		return "package p\n\nimport (\n\t\"os\"\n\t\"testing\"\n\n\t\"outboxlab/internal/longtest\"\n)\n\n" + body
	}
	sound := map[string]string{"x/a_test.go": test(`func TestA(t *testing.T) {
	longtest.Only(t, "long_a", "TestB")
}
func TestB(t *testing.T) { _ = longtest.Long(t, "long_a") }
`)}
	if p, _ := longProblems(sound, script); len(p) > 0 {
		t.Fatalf("a sound split: %q", p)
	}
	for _, c := range []struct{ name, file, want string }{
		{"a step .ci/run does not have", `func TestA(t *testing.T) { longtest.Only(t, "long_c", "") }`, `names step long_c, which .ci/run does not define`},
		{"a step that does not run it", `func TestA(t *testing.T) { longtest.Only(t, "long_b", "") }`, `step long_b does not run_long long_b`},
		{"a call in a helper", "func TestA(t *testing.T) { helper(t) }\nfunc helper(t *testing.T) { longtest.Only(t, \"long_a\", \"\") }", `a longtest call in helper, which is not a test function`},
		{"two steps", `func TestA(t *testing.T) { longtest.Only(t, "long_a", ""); longtest.Long(t, "long_b") }`, `TestA names two steps`},
		{"the switch read by hand", "func TestA(t *testing.T) { _ = os.Getenv(\"OUTBOXLAB_" + "LONG\") }", `reads OUTBOXLAB_LONG itself`},
		{"a step not a literal", `func TestA(t *testing.T) { s := "long_a"; longtest.Only(t, s, "") }`, `want longtest.Only(t, "STEP"`},
	} {
		files := map[string]string{"x/a_test.go": test(c.file)}
		if c.name == "two steps" {
			files["y/b_test.go"] = test(`func TestA(t *testing.T) { longtest.Only(t, "long_a", "") }`)
		}
		got, _ := longProblems(files, script)
		if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, c.want) }) {
			t.Errorf("%s: problems %q; want one saying %q", c.name, got, c.want)
		}
	}
	files := map[string]string{
		"x/a_test.go": test(`func TestA(t *testing.T) { longtest.Only(t, "long_a", "") }`),
		"y/b_test.go": test(`func TestA(t *testing.T) {}
func TestC(t *testing.T) { longtest.Only(t, "long_a", "") }`),
	}
	if got, _ := longProblems(files, script); !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, "would run y's TestA too") }) {
		t.Errorf("a name shared with an everyday test of another package the step runs: problems %q", got)
	}
}

// longProblems returns what is wrong with the longtest calls of files
// (path to source) against .ci/run's script, and a line per step with
// the tests it runs.
func longProblems(files map[string]string, script string) (problems, steps []string) {
	defined := map[string]string{} // step name to its body
	for _, m := range regexp.MustCompile(`(?ms)^step_([a-z0-9_]+)\(\) \{\n(.*?)^\}`).FindAllStringSubmatch(script, -1) {
		defined[m[1]] = m[2]
	}
	type longTest struct{ pkg, name, step string }
	var long []longTest
	tests := map[string]map[string]bool{} // package dir to its test names
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, path := range paths {
		src := files[path]
		if !strings.HasSuffix(path, "_test.go") {
			continue
		}
		pkg := filepath.Dir(path)
		if tests[pkg] == nil {
			tests[pkg] = map[string]bool{}
		}
		if regexp.MustCompile(`(Getenv|LookupEnv)\("OUTBOXLAB_LONG"\)`).MatchString(src) {
			problems = append(problems, fmt.Sprintf("%s reads OUTBOXLAB_LONG itself: call longtest.Long or longtest.Only", path))
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			isTest := fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") && fn.Type.Params.NumFields() == 1
			if isTest {
				tests[pkg][fn.Name.Name] = true
			}
			named := ""
			ast.Inspect(fn, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || fmt.Sprint(sel.X) != "longtest" || sel.Sel.Name != "Long" && sel.Sel.Name != "Only" {
					return true
				}
				where := fset.Position(call.Pos())
				if !isTest {
					problems = append(problems, fmt.Sprintf("%s: a longtest call in %s, which is not a test function: .ci/run finds a long test by its own call", where, fn.Name.Name))
					return true
				}
				var step string
				if len(call.Args) >= 2 {
					if lit, ok := call.Args[1].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						step, _ = strconv.Unquote(lit.Value)
					}
				}
				text := src[where.Offset:]
				if step == "" || !strings.HasPrefix(text, fmt.Sprintf("longtest.%s(t, %q", sel.Sel.Name, step)) {
					problems = append(problems, fmt.Sprintf("%s: want longtest.%s(t, \"STEP\", ...) on one line, as .ci/run reads it", where, sel.Sel.Name))
					return true
				}
				if named != "" && named != step {
					problems = append(problems, fmt.Sprintf("%s: %s names two steps, %s and %s: an exhaustive form runs in one", where, fn.Name.Name, named, step))
				}
				if named == "" {
					long = append(long, longTest{pkg, fn.Name.Name, step})
				}
				named = step
				body, ok := defined[step]
				switch {
				case !ok:
					problems = append(problems, fmt.Sprintf("%s: %s names step %s, which .ci/run does not define (step_%s)", where, fn.Name.Name, step, step))
				case !regexp.MustCompile(`(?m)^\s*run_long ` + step + `\s*$`).MatchString(body):
					problems = append(problems, fmt.Sprintf("%s: %s names step %s, but step %s does not run_long %s", where, fn.Name.Name, step, step, step))
				}
				return true
			})
		}
	}
	byStep := map[string][]longTest{}
	for _, l := range long {
		byStep[l.step] = append(byStep[l.step], l)
	}
	for step, ls := range byStep {
		var line []string
		for _, l := range ls {
			line = append(line, l.pkg+" "+l.name)
			for _, other := range ls {
				if other.pkg != l.pkg && tests[other.pkg][l.name] && !slices.Contains(ls, longTest{other.pkg, l.name, step}) {
					problems = append(problems, fmt.Sprintf("step %s runs %s's %s by name, and would run %s's %s too: rename one", step, l.pkg, l.name, other.pkg, l.name))
				}
			}
		}
		steps = append(steps, fmt.Sprintf("%s: %s", step, strings.Join(line, ", ")))
	}
	slices.Sort(problems)
	slices.Sort(steps)
	return problems, steps
}
