// Package mutation judges the lab by the mutants of its reference path it
// catches. It changes the reference order service, relay and inbox consumer
// one small step at a time (delete a statement, negate a condition, swap
// two effects, move a comparison's bound, drop one side of an && or ||),
// builds the changed copies with go build -overlay (the work tree is never
// touched) and grades each mutant with the lab: the matrix, the
// double-crash sweep and a fixed-seed exploration of the reference
// variant. A mutant the lab grades OK everywhere survives: it is equivalent
// (the change cannot alter behaviour), or the lab has a blind spot.
//
// All mutants of a file are built into one copy of it (mutant schemata):
// each change is guarded by on.On(k), so one build serves every mutant and
// a run picks one by setting on.Active. `go run ./cmd/labwhy` runs the
// analysis and writes the annotated reference, every line of the reference
// path with the rows that fail without it.
package mutation
