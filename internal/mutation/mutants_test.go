package mutation

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"

	"outboxlab/internal/longtest"
)

// TestEverySchemaBuilds: the mutated copies of the reference path compile,
// each build together (the packages compiled, nothing linked).
func TestEverySchemaBuilds(t *testing.T) {
	longtest.Only(t, "mutation_weakened", "no case: the mutation job builds every schema")
	ms, err := Generate("../..", Reference)
	if err != nil {
		t.Fatal(err)
	}
	schemata, err := Schemata("../..", ms)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d mutants in %d builds", len(ms), len(schemata))
	args := []string{"build", "-overlay", ""}
	for _, m := range ms {
		if pkg := "./" + path.Dir(m.File); !slices.Contains(args, pkg) {
			args = append(args, pkg)
		}
	}
	for i, s := range schemata {
		overlay, err := WriteOverlay(t.TempDir(), "../..", s)
		if err != nil {
			t.Fatal(err)
		}
		args[2] = overlay
		cmd := exec.Command("go", args...)
		cmd.Dir = "../.."
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("build %d: %v\n%s", i, err, out)
		}
	}
}

// TestIndependentSwapsAreTheOnesThatCannotMatter: a swap is marked
// equivalent only when the statements touch different memory and call
// nothing; every other pair stays a mutant the lab must catch.
func TestIndependentSwapsAreTheOnesThatCannotMatter(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"entry.Kind, entry.Amount = Invoice, ev.Total", "acc.Billed = ev.Total", true},
		{"acc.Billed = x", "acc.Cancelled = true", true},
		{"n++", "m = 2", true},
		{"acc.Billed = domain.Money{Minor: -acc.Billed.Minor, Currency: acc.Billed.Currency}", "acc.Cancelled = true", true},
		{"acc.Billed = x", "y = acc.Billed.Minor", false}, // b reads what a writes
		{"y = acc.Billed.Minor", "acc = other", false},    // b writes what a reads
		{"acc = other", "acc.Billed = x", false},          // one inside the other
		{"x = f()", "y = 1", false},                       // a call may do anything
		{"m[k] = 1", "v = m[j]", false},                   // an index counts as all of m
		{"x = 1", "y = k", true},
		{"x = k", "k++", false},
		{"p = &x", "x = 2", false}, // an address taken
		{"x += 1", "y = x", false},
	} {
		src := "package p\nfunc f() {\n" + tc.a + "\n" + tc.b + "\n}\n"
		file, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		body := file.Decls[0].(*ast.FuncDecl).Body.List
		if got := independent(body[0], body[1]); got != tc.want {
			t.Errorf("independent(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestADroppedSideIsNotEvaluated: dropping a side of && or || drops its
// effect too. The grader once kept "m.Replay(now) == nil" evaluated (the
// switch came after it), so the replay still happened and the mutant
// survived what it claims to be: a relay that never replays.
func TestADroppedSideIsNotEvaluated(t *testing.T) {
	ms, err := Generate("../..", Reference)
	if err != nil {
		t.Fatal(err)
	}
	const key = "outbox/relay.go:ReplayDeadLetters:drop-right:m.Replay(now) == nil"
	var m *Mutant
	for i := range ms {
		if ms[i].Key == key {
			m = &ms[i]
		}
	}
	if m == nil {
		t.Fatalf("no mutant %s", key)
	}
	schemata, err := Schemata("../..", []Mutant{*m})
	if err != nil {
		t.Fatal(err)
	}
	src := string(schemata[0].Files["outbox/relay.go"])
	want := fmt.Sprintf("(__mut.On(%d) || m.Replay(now) == nil)", m.ID)
	if !strings.Contains(src, want) {
		t.Fatalf("the mutated relay.go has no %q", want)
	}
}

// TestKeysAreUnique: a key names one mutant, so that saved results and
// the explanations of survivors (Survivors) find the mutant they mean;
// recordFailure writes tx.Put(Table, cur.Key, cur) twice.
func TestKeysAreUnique(t *testing.T) {
	ms, err := Generate("../..", Reference)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	twice := false
	for _, m := range ms {
		if seen[m.Key] {
			t.Errorf("two mutants named %q", m.Key)
		}
		seen[m.Key] = true
		twice = twice || strings.HasSuffix(m.Key, " (2)")
	}
	if !twice {
		t.Error("no second mutant of the same code: the test no longer tries the case it exists for")
	}
}

// TestSurvivorsNameSurvivors: every explanation in Survivors names a
// mutant of the reference that the saved results (docs/why.results.json,
// written by go run ./cmd/labwhy) show surviving: a mutant the lab learned
// to catch loses its excuse.
func TestSurvivorsNameSurvivors(t *testing.T) {
	ms, err := Generate("../..", Reference)
	if err != nil {
		t.Fatal(err)
	}
	exists := map[string]bool{}
	for _, m := range ms {
		exists[m.Key] = true
	}
	f, err := os.Open("../../docs/why.results.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	results, err := ReadResults(f)
	if err != nil {
		t.Fatal(err)
	}
	killed := map[string]bool{}
	for _, r := range results {
		killed[r.Key] = r.Killed()
	}
	for key := range Survivors {
		switch {
		case !exists[key]:
			t.Errorf("Survivors explains %q, which is no mutant of the reference", key)
		case killed[key]:
			t.Errorf("Survivors explains %q, which the lab kills (docs/why.results.json)", key)
		}
	}
	for key := range Unearned {
		switch {
		case !exists[key]:
			t.Errorf("Unearned explains %q, which is no mutant of the reference", key)
		case !killed[key]:
			t.Errorf("Unearned explains %q, which the lab does not flag: it belongs in Survivors", key)
		}
	}
}
