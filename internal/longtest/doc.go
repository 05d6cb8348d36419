// Package longtest marks the exhaustive forms of the lab's tests.
//
// go test ./... is what a participant runs all day, and it stays near
// ten seconds: each kind of check (a mistake caught, a door agreeing, a
// claim proven, a German screen, a golden) keeps one representative case
// there. A test's exhaustive form (every claim, every door, every seed)
// runs in one named step of .ci/run, with OUTBOXLAB_LONG=1:
//
//	func TestEveryClaimPrintsWhatItSays(t *testing.T) {
//		claims := representative
//		if longtest.Long(t, "long_cli") {
//			claims = all
//		}
//		...
//	}
//
// A test that has no everyday form of its own (its representative case
// is another test) skips outside its step:
//
//	longtest.Only(t, "long_explore", "TestTeeth finds every mistake at one seed")
//
// .ci/run reads the calls from the sources: the step named in a call runs
// that test with OUTBOXLAB_LONG=1, by name, and no other step does
// (TestEveryLongTestRunsInOneStep at the module's root keeps it so).
package longtest
