// Package on is the switch of the mutation analysis: the mutated copies of
// the reference path (built with go build -overlay, never in the work
// tree) ask it whether their mutant is the one under test. The reference
// itself never imports it.
package on

// Active is the mutant under test; -1 runs the reference unchanged. Set it
// before a run starts, never during one.
var Active = -1

// On reports whether mutant k is the one under test.
func On(k int) bool { return k == Active }
