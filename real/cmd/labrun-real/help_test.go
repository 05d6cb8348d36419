package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestHelpAsLabrunHasIt: labrun-real --help, help, help COMMAND and
// COMMAND -h print the help on stdout and exit 0 (--help was an unknown
// command, matrix -h and verify -h Go's bare flag dump); a command's help
// names every flag with what it means, verify's its rounds, and each the
// exit codes.
func TestHelpAsLabrunHasIt(t *testing.T) {
	for _, tc := range []struct {
		args []string
		say  []string
	}{
		{[]string{"--help"}, []string{"usage: labrun-real COMMAND", "  verify  Grades a relay program", "Exit codes: 0"}},
		{[]string{"help"}, []string{"  matrix  Every crash point", "labrun-real help [COMMAND]"}},
		{[]string{"help", "matrix"}, []string{"usage: labrun-real matrix", "  --variant V\n      a variant (repeatable;", "  --workers int\n      cells run at once (>= 1) (default 4)", "Exit codes:"}},
		{[]string{"matrix", "-h"}, []string{"usage: labrun-real matrix", "  --postgres\n"}},
		{[]string{"verify", "-h"}, []string{"usage: labrun-real verify", "  --relay string\n      the command that starts one relay instance", "The rounds of a relay (--round R", "  kill-before-answer ", "The rounds of a consumer (--consumer", "  kill-after-effect ", "Exit codes:"}},
		{[]string{"run", "--help"}, []string{"usage: labrun-real run", "  --point string"}},
		{[]string{"bench", "-h"}, []string{"usage: labrun-real bench", "  --orders int\n      orders to place (>= 1) (default 1000)"}},
		{[]string{"merge", "-h"}, []string{"usage: labrun-real merge FILE..."}},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if code != 0 || stderr.Len() > 0 {
			t.Errorf("labrun-real %s: exit %d, stderr %q; want 0 and the help on stdout", strings.Join(tc.args, " "), code, stderr.String())
		}
		for _, s := range tc.say {
			if !strings.Contains(stdout.String(), s) {
				t.Errorf("labrun-real %s does not say %q:\n%s", strings.Join(tc.args, " "), s, stdout.String())
			}
		}
	}
}
