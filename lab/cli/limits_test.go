package cli

import (
	"strings"
	"testing"
)

// TestABacklogThatOverflowsIsRefused: rates whose counts do not fit a
// whole number exit 2 naming the largest rate that fits (they printed
// "-9223372036854775808 messages", exit 0); the largest fits.
func TestABacklogThatOverflowsIsRefused(t *testing.T) {
	code, stdout, stderr := runLabrun("backlog", "--rate", "1e16", "--outage", "20m", "--relay", "2e16")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "the largest rate that fits with a 20m0s outage is 1.1574e+13 events/s") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 naming the largest rate", code, stdout, stderr)
	}
	code, stdout, _ = runLabrun("backlog", "--rate", "1.1574e13", "--outage", "20m", "--relay", "2e13")
	if code != 0 || strings.Contains(stdout, "-") {
		t.Errorf("the largest rate that fits: exit %d:\n%s", code, stdout)
	}
}

// TestHelpOnHelp: labrun help help says what help does, exit 0 (it was
// an unknown command, exit 2), in both languages.
func TestHelpOnHelp(t *testing.T) {
	for _, args := range [][]string{{"help", "help"}, {"help", "help", "--lang", "de"}} {
		code, stdout, stderr := runLabrun(args...)
		if code != 0 || !strings.Contains(stdout, "labrun help [") || stderr != "" {
			t.Errorf("labrun %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}
