package cli

import (
	"strings"
	"testing"
)

// FuzzArgs runs labrun with arbitrary arguments: it must exit 0, 1 or 2 and
// never panic; exit 2 must come with one line on stderr. The expensive
// commands (the whole matrix, long explorations, the backlog simulation)
// are skipped: their parsing is the same code the cheap ones run.
func FuzzArgs(f *testing.F) {
	for _, s := range []string{
		"list", "list --format json", "scenario happy-path", "scenario relay.after-send@2 --variant dual-write",
		"scenario gap --format mermaid --seed 7", "backlog --rate 500 --outage 20m --relay 800 --format json",
		"explore --variant dual-write --runs 3", "scenario", "frobnicate", "backlog --rate 1e400 --outage 1h --relay 2",
		"scenario publish-timeout-stored@2", "-h", "scenario -h", "help", "help matrix", "help nope", "help --lang de backlog",
		"list --bogus", "scenario happy-path --seed",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		if len(args) == 0 || args[0] == "matrix" || strings.HasPrefix(args[0], "-") && !isHelp(args[0]) {
			return // no command means the whole matrix
		}
		cheapRuns := false // explore runs 1,000 schedules unless told fewer
		for i, a := range args {
			name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if !hasValue && i+1 < len(args) {
				value = args[i+1]
			}
			switch {
			case strings.HasPrefix(a, "-") && name == "simulate":
				return
			case strings.HasPrefix(a, "-") && name == "runs":
				cheapRuns = len(value) == 1
			}
		}
		if args[0] == "explore" && !cheapRuns {
			return
		}
		code, _, stderr := runLabrun(args...)
		switch code {
		case 0, 1:
		case 2:
			if strings.Count(stderr, "\n") != 1 {
				t.Fatalf("labrun %q: exit 2 with stderr %q, want one line", line, stderr)
			}
		default:
			t.Fatalf("labrun %q: exit %d", line, code)
		}
	})
}
