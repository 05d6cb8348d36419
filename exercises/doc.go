// Package exercises holds the course's exercises, one package each, every
// one graded by the lab:
//
//	recovery   a restarted relay must not take live claims from the others
//	sendfirst  a relay that survives the whole matrix: send, then mark
//	dedup      a consumer whose inbox is part of the effect's transaction
//	ordering   a consumer that bills each order's events in sequence
//
// Each has a starter (starter.go) with a marked mistake to fix, a test
// that grades it with hints, and a reference solution apart from it, in
// exercises/_solutions (a directory the go tool leaves out of ./...),
// built in the starter's place by an overlay:
//
//	go test ./exercises/recovery -exercise      grade your work
//	go test -overlay exercises/_solutions/overlay.json ./exercises/recovery -exercise
//	                                            the reference solution
//
// The consumer exercises (dedup, ordering) share the consumer around the
// learner's handle: package exercises/frame.
//
// Without -exercise the tests skip, so that go test ./... stays green
// while an exercise is unsolved.
package exercises
