package main

import (
	"fmt"
	"os"
	"strings"

	"outboxlab/internal/mutation"
)

// grade builds the mutants of ms into as few graders as their changes
// allow, checks that each build with its mutants off passes, and grades
// them all in one queue, the rows of first run first. Each result gets
// its mutant's key and its file's hash.
func (a *analysis) grade(all, ms []mutation.Mutant, first []string) ([]mutation.Result, error) {
	if len(ms) == 0 {
		return nil, nil
	}
	schemata, err := mutation.Schemata(".", ms)
	if err != nil {
		return nil, err
	}
	var jobs []mutation.Job
	for i, s := range schemata {
		for path, src := range a.lab {
			s.Files[path] = src
		}
		dir, err := os.MkdirTemp("", "labwhy")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		bin, err := mutation.Build(dir, ".", "./cmd/labwhy", s)
		if err != nil {
			return nil, err
		}
		// The reference itself, built with the mutants switched off, must
		// pass the matrix: otherwise the build changed more than the
		// mutants. (Its later stages are the grader's own tests'.)
		base, err := mutation.Grade(bin, []string{"-quick"}, []int{-1}, 1, nil)
		if err != nil {
			return nil, err
		}
		if base[0].Killed() {
			return nil, fmt.Errorf("the reference built with build %d's mutants off fails: %v %s", i, base[0].Failed, base[0].Crashed)
		}
		for _, id := range s.Mutants {
			jobs = append(jobs, mutation.Job{Bin: bin, ID: id})
		}
	}
	args := a.depthArgs()
	if len(first) > 0 {
		args = append(args, "-first", strings.Join(first, ","))
	}
	step, done := a.progress(len(jobs))
	rs, err := mutation.GradeJobs(jobs, args, a.flags.workers, step)
	done()
	if err != nil {
		return nil, err
	}
	for i := range rs {
		m := all[rs[i].ID]
		rs[i].Key, rs[i].Hash = m.Key, a.hashes[m.File]
	}
	return rs, nil
}

// depthArgs are the grader's flags for the run's depth.
func (a *analysis) depthArgs() []string {
	switch a.depth {
	case mutation.FirstRed:
		return []string{"-quick"}
	case mutation.Rows:
		return []string{"-rows"}
	}
	return nil
}
