// Package exercises holds the course's exercises, one package each, every
// one graded by the lab:
//
//	recovery   a restarted relay must not take live claims from the others
//	sendfirst  a relay that survives the whole matrix: send, then mark
//	dedup      a consumer whose inbox is part of the effect's transaction
//	ordering   a consumer that bills each order's events in sequence
//
// Each has a starter (the default build) with a marked mistake to fix, a
// test that grades it with hints, and a reference solution behind the
// build tag solution:
//
//	go test ./exercises/recovery -exercise                 grade your work
//	go test ./exercises/recovery -exercise -tags solution  the reference solution
//
// The consumer exercises (dedup, ordering) share the consumer around the
// learner's handle: package exercises/frame.
//
// Without -exercise the tests skip, so that go test ./... stays green
// while an exercise is unsolved.
package exercises
