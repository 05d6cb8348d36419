package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"outboxlab/sim"
)

// TestTheTimelineSaysWhatItLeftOut: a run of the same event shown twice,
// then counted, then once more says how many it left out in words that
// fit the number, and the time of the last one it left out, not of the
// one printed after it.
func TestTheTimelineSaysWhatItLeftOut(t *testing.T) {
	cleanup := func(at time.Duration) sim.Event {
		return sim.Event{At: at, Process: "relay-1", Kind: sim.EventCommand, Action: "retention cleanup"}
	}
	cases := []struct {
		reps int
		want string
	}{
		{4, "... the same event once more, the last at 03:00:00.000 ..."},
		{6, "... the same event 3 more times, the last at 05:00:00.000 ..."},
	}
	for _, c := range cases {
		var trace []sim.Event
		for i := 1; i <= c.reps; i++ {
			trace = append(trace, cleanup(time.Duration(i)*time.Hour))
		}
		var out bytes.Buffer
		writeTimeline(&out, trace)
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 4 || lines[2] != c.want {
			t.Errorf("%d cleanups an hour apart:\n%s\nwant the third line %q", c.reps, out.String(), c.want)
		}
	}
}

// TestARestartSaysItOnce: a restart's line is the process and the word,
// not "restart restart".
func TestARestartSaysItOnce(t *testing.T) {
	_, out, _ := runLabrun("scenario", "mistake/dual-write")
	if strings.Contains(out, "restart restart") || !strings.Contains(out, "service   restart\n") {
		t.Errorf("the restart's line says the word twice, or is missing:\n%s", out)
	}
}

// TestOneLegendOneMarkForNeverReached: a table has one legend, and a
// point a variant never reaches has one mark in it and in the table.
func TestOneLegendOneMarkForNeverReached(t *testing.T) {
	for _, args := range [][]string{
		{"matrix", "--variant", "dual-write", "--depth", "quick"},
		{"matrix", "--variant", "dual-write", "--depth", "quick", "--wide"},
	} {
		_, out, _ := runLabrun(args...)
		if n := strings.Count(out, "Legend"); n != 1 {
			t.Errorf("labrun %s: %d legends, want one", strings.Join(args, " "), n)
		}
		if strings.Contains(out, "n/a") || !neverReached.MatchString(out) {
			t.Errorf("labrun %s: never reached is not one mark, -, with one line in the legend:\n%s", strings.Join(args, " "), out)
		}
	}
}

// neverReached is the legend's line for the mark of a point never reached.
var neverReached = regexp.MustCompile(`(?m)^  - +the variant never reaches this point$`)
