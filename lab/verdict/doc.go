// Package verdict is the lab's one grader: it grades a variant at a named
// depth and returns a typed verdict, every finding with its stage, its
// cause, its outcome and the run that replays it, as values. It prints
// nothing.
//
//	v, err := verdict.Grade(myRelay(), verdict.Options{Depth: verdict.Course})
//	for _, g := range v.Groups() { // one per cause
//		fmt.Println(g.Text().In(lang.English), g.First().Run.Command("labrun"))
//	}
//
// Every door grades through it, so that a variant gets the same verdict
// whichever it comes through: labrun (its summary, matrix and grade
// commands), a course's own labrun (cli.Lab), grade.Variant and
// grade.Exercise in a Go test, the exercises, and the mutation analysis
// (cmd/labwhy).
//
// The depths:
//
//	quick   the crash matrix
//	course  the matrix, the assumptions (rows that contradict what code
//	        may assume and nothing else contradicts), the double-crash
//	        sweep, the failure sweep, the matrix polled as Relay.Run
//	        polls, exploration at several seeds, and the replays
//	full    the same with many more random schedules and seeds
//
// Every variant is graded by the matrix against what it declares. The
// stages beyond it ask more of a variant that claims to be correct (it
// declares OK everywhere): they have no declaration to compare with, and
// every run must be OK. The replays (replay.go), at course and full, ask
// every variant that its runs replay: a sample of the matrix's runs and
// of first failed commits made before every other run and again after
// the last stage, and every finding's run made twice; two runs that part
// are NONDETERMINISTIC.
package verdict
