package outboxlab_test

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestEveryCIStepRunsInOneJob: .ci/run bare runs every job; a CI
// system's matrix (.github/workflows/ci.yml) runs one job a machine.
// Together the jobs run what the bare run runs, each step once: every
// step is in exactly one job, no step calls another, and the workflow's
// matrix names every job once.
func TestEveryCIStepRunsInOneJob(t *testing.T) {
	script, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	workflow, err := os.ReadFile(".github/workflows/ci.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ciProblems(string(script), string(workflow)) {
		t.Error(p)
	}
}

// TestCIProblemsAreFound: the check above, given a script and a workflow
// that drop a step, run one twice or leave a job out, says so.
func TestCIProblemsAreFound(t *testing.T) {
	const script = `
jobs=(
  "core: gofmt vet"
  "real: real_race"
)
step_gofmt() { gofmt -l .; }
step_vet() { go vet ./...; }
step_real_race() { go test -race ./...; }
`
	const workflow = `        job:
          - core
          - real
    steps:
`
	if p := ciProblems(script, workflow); len(p) > 0 {
		t.Fatalf("a sound script and workflow: %q", p)
	}
	for _, c := range []struct {
		name, script, workflow, want string
	}{
		{"a step in no job", script + "step_bench() { go test -bench .; }\n", workflow, "step bench is in 0 jobs"},
		{"a step in two jobs", strings.Replace(script, "real_race", "real_race vet", 1), workflow, "step vet is in 2 jobs"},
		{"a step that does not exist", strings.Replace(script, "gofmt vet", "gofmt vet lint", 1), workflow, "job core names step lint"},
		{"a step called by another", strings.Replace(script, "go test -race ./...;", "step_vet; go test -race ./...;", 1), workflow, "step vet is called outside run_step"},
		{"a job the workflow leaves out", script, strings.Replace(workflow, "          - real\n", "", 1), "the workflow runs job real 0 times"},
		{"a job the workflow runs twice", script, strings.Replace(workflow, "- real\n", "- real\n          - core\n", 1), "the workflow runs job core 2 times"},
		{"a job the script does not have", script, strings.Replace(workflow, "- real\n", "- real\n          - lint\n", 1), "the workflow runs job lint, which .ci/run does not have"},
	} {
		got := ciProblems(c.script, c.workflow)
		if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, c.want) }) {
			t.Errorf("%s: problems %q; want one saying %q", c.name, got, c.want)
		}
	}
}

// ciProblems returns what is wrong between .ci/run's jobs (its
// jobs=( "NAME: STEP..." ) list), its step_NAME functions and the
// workflow's matrix (the "- NAME" lines under job:).
func ciProblems(script, workflow string) []string {
	_, list, ok := strings.Cut(script, "\njobs=(\n")
	if !ok {
		return []string{".ci/run has no jobs=( list"}
	}
	list, _, _ = strings.Cut(list, "\n)")
	var problems []string
	jobs, inJob := map[string]bool{}, map[string][]string{}
	for _, line := range regexp.MustCompile(`(?m)^\s*"([a-z0-9-]+): ([a-z0-9_ ]+)"`).FindAllStringSubmatch(list, -1) {
		jobs[line[1]] = true
		for _, s := range strings.Fields(line[2]) {
			inJob[s] = append(inJob[s], line[1])
		}
	}
	defined := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^step_([a-z0-9_]+)\(\) \{`).FindAllStringSubmatch(script, -1) {
		defined[m[1]] = true
	}
	for s := range defined {
		if n := len(inJob[s]); n != 1 {
			problems = append(problems, fmt.Sprintf("step %s is in %d jobs %v; want 1", s, n, inJob[s]))
		}
		calls := regexp.MustCompile(`\bstep_`+s+`\b`).FindAllStringIndex(script, -1)
		if len(calls) > 1 {
			problems = append(problems, fmt.Sprintf("step %s is called outside run_step: a job that runs it and one that runs its caller run it twice", s))
		}
	}
	for s, js := range inJob {
		if !defined[s] {
			problems = append(problems, fmt.Sprintf("job %s names step %s, which .ci/run does not define (step_%s)", js[0], s, s))
		}
	}
	matrix := map[string]int{}
	_, after, _ := strings.Cut(workflow, "job:\n")
	for _, line := range strings.Split(after, "\n") {
		name, ok := strings.CutPrefix(strings.TrimSpace(line), "- ")
		if !ok {
			break
		}
		matrix[name]++
		if !jobs[name] {
			problems = append(problems, fmt.Sprintf("the workflow runs job %s, which .ci/run does not have", name))
		}
	}
	for j := range jobs {
		if matrix[j] != 1 {
			problems = append(problems, fmt.Sprintf("the workflow runs job %s %d times; want once", j, matrix[j]))
		}
	}
	slices.Sort(problems)
	return problems
}
