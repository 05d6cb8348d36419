package verify

import (
	"strings"
	"testing"
)

// TestALateProduceIsStagedInTheReplay: a request that carried a row
// after its sender's lease on it ran out, with no fault of the harness
// on the sender, is the machine's timing: the replay stages it as a
// stall of the sender at that request. A stop of the harness's, or a
// request within the lease, is nothing to stage.
func TestALateProduceIsStagedInTheReplay(t *testing.T) {
	for _, tc := range []struct {
		name string
		play func(s *story)
		want string
	}{
		{"within the lease", func(s *story) {
			s.change("relay-1/1", "e-1", "PENDING", "IN_FLIGHT", ms(12), 0, ms(2012))
			s.store("relay-1/1", "e-1", ms(1500))
		}, ""},
		{"past the lease", func(s *story) {
			s.store("relay-2/1", "e-2", ms(20))
			s.change("relay-1/1", "e-1", "PENDING", "IN_FLIGHT", ms(12), 0, ms(2012))
			s.store("relay-1/1", "e-1", ms(2600))
		}, "stall@2"},
		{"past the lease, stopped by the harness", func(s *story) {
			s.change("relay-1/1", "e-1", "PENDING", "IN_FLIGHT", ms(12), 0, ms(2012))
			s.interrupt("relay-1/1", ms(100), ms(3100))
			s.store("relay-1/1", "e-1", ms(3200))
		}, ""},
		{"past another process's lease", func(s *story) {
			s.change("relay-2/1", "e-1", "PENDING", "IN_FLIGHT", ms(12), 0, ms(2012))
			s.store("relay-1/1", "e-1", ms(2600))
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStory(t)
			tc.play(s)
			late, ok := lateProduce(s.e)
			got := ""
			if ok {
				got = late.Fault().String()
			}
			if got != tc.want {
				t.Fatalf("staged %q, want %q", got, tc.want)
			}
			if ok && !strings.Contains(late.String(), "produce #2 of relay-1/1 carried e-1 0.588s after its claim's lease ran out") {
				t.Errorf("%s", late)
			}
		})
	}
}
