package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"outboxlab/internal/longtest"
	"outboxlab/internal/mutation"
	"outboxlab/internal/shard"
)

// TestBadUsageExitsTwoNamingWhatIsValid: each misuse exits 2 with a
// message that says what is valid.
func TestBadUsageExitsTwoNamingWhatIsValid(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "3/2", "--results", "x"}, "1 <= I <= N"},
		{[]string{"--shard", "1-2", "--results", "x"}, "want I/N"},
		{[]string{"--shard", "1/2"}, "--shard needs --results"},
		{[]string{"--shard", "1/2", "--results", "x", "--file", "outbox/relay.go"}, "drop --file"},
		{[]string{"--quick", "--rows"}, "choose one"},
		{[]string{"--file", "nope.go"}, "valid files: orders/service.go"},
		{[]string{"stray"}, "merge comes first"},
		{[]string{"merge"}, "name the shards' results"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(c.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("labwhy %s: exit %d, stderr %q; want exit 2 saying %q", strings.Join(c.args, " "), code, stderr.String(), c.want)
		}
	}
}

// TestShardsMergeIntoTheWholeRunByteForByte: with --since HEAD every
// mutant keeps its saved result (nothing is graded, so the test is
// quick); two shards' results, merged, are the unsharded run's byte for
// byte, each shard holds a part, and a shard merged twice is refused.
func TestShardsMergeIntoTheWholeRunByteForByte(t *testing.T) {
	t.Chdir("../..")
	var paths []string
	for _, f := range mutation.Reference {
		paths = append(paths, f.Path)
	}
	if err := exec.Command("git", append([]string{"diff", "--quiet", "HEAD", "--"}, paths...)...).Run(); err != nil {
		t.Skip("the reference path differs from HEAD here (or no git): --since HEAD would grade it")
	}
	dir := t.TempDir()
	file := func(n string) string { return filepath.Join(dir, n) }
	lab := func(args ...string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("labwhy %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
		}
	}
	lab("--since", "HEAD", "--results", file("whole.json"), "--out", file("whole.md"))
	lab("--since", "HEAD", "--shard", "1/2", "--results", file("1.json"))
	lab("--since", "HEAD", "--shard", "2/2", "--results", file("2.json"))
	lab("merge", "--results", file("merged.json"), "--out", file("merged.md"), file("2.json"), file("1.json"))
	read := func(n string) []byte {
		b, err := os.ReadFile(file(n))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	whole, one, two := read("whole.json"), read("1.json"), read("2.json")
	if !bytes.Equal(read("merged.json"), whole) || !bytes.Equal(read("merged.md"), read("whole.md")) {
		t.Errorf("the merged shards differ from the whole run")
	}
	if len(one) == 0 || len(two) == 0 || len(one)+len(two) != len(whole) {
		t.Errorf("shards of %d and %d bytes for a whole of %d", len(one), len(two), len(whole))
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"merge", "--results", file("m2.json"), "--out", file("m2.md"), file("1.json"), file("1.json"), file("2.json")}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "in two shards") {
		t.Errorf("a shard merged twice: exit %d, %q", code, stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"merge", "--results", file("m3.json"), "--out", file("m3.md"), file("1.json")}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "a shard is missing") {
		t.Errorf("a shard missing: exit %d, %q", code, stderr.String())
	}
}

// savedReference moves to the module's root and returns the mutants of
// the reference path, the saved results and each mutant's; it skips the
// test when the saved results are of another version of the reference.
func savedReference(t *testing.T) ([]mutation.Mutant, mutation.History, map[int]mutation.Result) {
	t.Helper()
	t.Chdir("../..")
	ms, err := mutation.Generate(".", mutation.Reference)
	if err != nil {
		t.Fatal(err)
	}
	hist, err := mutation.LoadHistory(savedResults)
	if err != nil {
		t.Fatal(err)
	}
	saved, all := hist.Match(ms)
	if !all {
		t.Skip("the saved results are of another version of the reference: go run ./cmd/labwhy")
	}
	return ms, hist, saved
}

// TestCheckFailsWhenTheScoreFalls: --check's comparison passes the saved
// results against themselves and fails when one mutant they kill
// survives.
func TestCheckFailsWhenTheScoreFalls(t *testing.T) {
	ms, hist, saved := savedReference(t)
	results := byID(ms, saved)
	var out bytes.Buffer
	if code := checkScore(mutation.NewAnalysis(ms, results, 0), ms, hist, savedResults, &out); code != 0 {
		t.Fatalf("the saved results against themselves: exit %d\n%s", code, out.String())
	}
	for i := range results {
		if results[i].Killed() {
			results[i].Failed, results[i].Crashed = nil, ""
			break
		}
	}
	out.Reset()
	if code := checkScore(mutation.NewAnalysis(ms, results, 0), ms, hist, savedResults, &out); code != 1 || !strings.Contains(out.String(), "score fell") {
		t.Fatalf("one killed mutant surviving: exit %d, %q; want 1, the score fell", code, out.String())
	}
}

// TestCheckGradesWhatCanLowerTheScore: --check grades every mutant the
// saved results kill, and keeps every survivor's result (graded again, it
// could only raise the score); a full run grades the survivors that are
// not equivalent too.
func TestCheckGradesWhatCanLowerTheScore(t *testing.T) {
	ms, hist, saved := savedReference(t)
	graded := func(check bool) map[int]bool {
		a := analysis{files: mutation.Reference, part: shard.Shard{I: 1, N: 1}, flags: flags{check: check, history: savedResults}}
		_, grade, err := a.kept(ms, hist)
		if err != nil {
			t.Fatal(err)
		}
		out := map[int]bool{}
		for _, m := range grade {
			out[m.ID] = true
		}
		return out
	}
	check, full := graded(true), graded(false)
	survivorsGraded := 0
	for _, m := range ms {
		killed := saved[m.ID].Killed()
		if check[m.ID] != killed {
			t.Errorf("--check grades %s:%d %s: %v; the saved results kill it: %v", m.File, m.Line, m.Change, check[m.ID], killed)
		}
		if killed && !full[m.ID] {
			t.Errorf("a full run keeps the saved kill of %s:%d %s", m.File, m.Line, m.Change)
		}
		if !killed && full[m.ID] {
			survivorsGraded++
		}
	}
	if survivorsGraded == 0 {
		t.Errorf("a full run grades no survivor: the test no longer shows what --check leaves out")
	}
}

// TestCheckFailsWhenTheLabWeakens: --check of billing/ledger.go, graded
// by a lab whose checker no longer compares what billing booked with
// what the orders say (check.Check without its content check), fails:
// the mutants that check killed survive, and the score falls below the
// saved one (nine of ApplyEffect's mutants survive it). Each survivor is
// graded through every stage: about 40 s of CPU, so .ci/run's step.
func TestCheckFailsWhenTheLabWeakens(t *testing.T) {
	longtest.Only(t, "mutation_weakened", "no case: it builds and grades billing/ledger.go's mutants with a weakened checker")
	t.Chdir("../..")
	const checker, content = "sim/check/check.go", "\tvs = append(vs, content(w, f)...)\n"
	src, err := os.ReadFile(checker)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte(content)) {
		t.Fatalf("%s no longer has the line %q this test switches off: name another invariant to switch off", checker, content)
	}
	files, err := selectFiles("billing/ledger.go", "")
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	a := analysis{files: files, depth: mutation.Full, part: shard.Shard{I: 1, N: 1}, stdout: &stdout, stderr: &stderr,
		flags: flags{check: true, history: savedResults, workers: 2},
		lab:   map[string][]byte{checker: bytes.Replace(src, []byte(content), nil, 1)}}
	a.plan()
	code, err := a.run()
	if err != nil {
		t.Fatal(err)
	}
	if code != 1 || !strings.Contains(stdout.String(), "the mutation score fell") {
		t.Errorf("--check with the content check switched off: exit %d; want 1, the score fell\n%s%s", code, stdout.String(), stderr.String())
	}
}
