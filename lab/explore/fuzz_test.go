package explore_test

import (
	"testing"

	"outboxlab/lab/explore"
	"outboxlab/scenarios"
	"outboxlab/sim"
)

// byteSource decodes a fuzzer's bytes into a schedule's choices: each draw
// takes the next byte modulo its range, 0 once the bytes run out. The
// schedule's seed, one of the draws, fixes every interleaving.
type byteSource struct{ b []byte }

func (s *byteSource) Intn(_ string, n int) int {
	if len(s.b) == 0 || n <= 1 {
		return 0
	}
	v := int(s.b[0]) % n
	s.b = s.b[1:]
	return v
}

// FuzzCorrectVariants is the coverage-guided search: the fuzzer's bytes
// become a schedule (commands, faults, stalls, crashes, the seed of the
// interleavings) and every correct variant must hold every invariant on it.
//
//	go test -fuzz FuzzCorrectVariants -fuzztime 10m ./explore
//
// A failure is kept under testdata/fuzz, and go test prints the command
// that replays it.
func FuzzCorrectVariants(f *testing.F) {
	f.Add([]byte{1, 1, 2, 5, 0, 0, 3, 1, 1, 2, 1, 1, 2, 2, 0, 1})
	f.Add([]byte{7, 2, 4, 7, 1, 0, 9, 1, 2, 0, 3, 6, 1, 3, 2, 2, 1, 40, 2, 4, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		s := explore.Generate(&byteSource{b: data})
		for _, v := range scenarios.Variants() {
			if !v.Correct() {
				continue
			}
			res, err := sim.Run(s.Config(v))
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome.String() != "OK" {
				// go test writes the input under testdata/fuzz and prints
				// the -run command that replays it.
				t.Fatalf("%s broke on this schedule:\n  %v\nviolations: %v", v.Name, s.Lines(), res.Violations)
			}
		}
	})
}
