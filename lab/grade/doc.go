// Package grade grades a learner's variant with one call in a Go test: the
// crash matrix against what the variant declares, and, for a variant that
// claims to be correct (it declares OK everywhere), the double-crash sweep
// and random exploration too. Every failure is one readable line with the
// command that replays it as a timeline:
//
//	func TestMyRelay(t *testing.T) { grade.Variant(t, myRelay()) }
//
//	go test ./mine -run '^TestMyRelay$' -lab.replay=relay.after-send@2
//
// The safety and content checks run in every run, as everywhere in the lab.
package grade
