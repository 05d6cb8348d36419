// Package grade grades a variant with one call in a Go test, through the
// lab's one grader (package verdict) at the depth -lab.depth names
// (course by default: the crash matrix against what the variant declares,
// and, for a variant that claims to be correct, the double-crash sweep,
// the failure sweep, the matrix polled as Relay.Run polls and exploration
// at several seeds). Each cause it finds is one finding with a hint and
// the command that replays its first run as a timeline; a passing grade
// says so under -v:
//
//	func TestMyRelay(t *testing.T) { grade.Variant(t, myRelay()) }
//
//	go test ./mine -run '^TestMyRelay$' -lab.replay=relay.after-send@2
//	go test ./mine -run '^TestMyRelay$' -lab.replay=explore:1000:2
//
// The safety and content checks run in every run, as everywhere in the lab.
package grade
