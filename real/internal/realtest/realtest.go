// Package realtest holds what the real module's tests share: the mark of
// a long test.
//
// The long tests (the differential matrices, the checks that stage whole
// rows on real processes) live in files named long_test.go and begin with
// Long(t): they skip under -short, and .ci/run runs the tests of every
// long_test.go of the module once, by name, without the race detector,
// while every other test runs with it and -short.
package realtest

import "testing"

// Long skips a long test under -short.
func Long(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("a long test (long_test.go); without -short it runs")
	}
}
