package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"outboxlab/real/sqlitelab"
)

func TestMain(m *testing.M) {
	sqlitelab.Child()
	os.Exit(m.Run())
}

func TestBadInputSaysWhatIsWrongAndExitsTwo(t *testing.T) {
	for _, tc := range []struct {
		args []string
		say  string
	}{
		{nil, "usage:"},
		{[]string{"frob"}, `unknown command "frob" (valid: matrix, bench, verify)`},
		{[]string{"matrix", "--variant", "listen-to-yourself"}, `unknown variant "listen-to-yourself" (the real parts run: outbox, dual-write`},
		{[]string{"matrix", "--variant", "cdc"}, `variant "cdc": not in the matrix on SQLite: its relay reads PostgreSQL's WAL (labrun-real matrix --postgres)`},
		{[]string{"matrix", "--variant", "claim-without-lock"}, `variant "claim-without-lock": not in the matrix: its verdict on real parts is a race's`},
		{[]string{"matrix", "--point", "stall"}, `unknown crash point "stall" (valid: service.before-commit`},
		{[]string{"matrix", "--workers", "0"}, "--workers 0: want a number >= 1"},
		{[]string{"matrix", "outbox"}, `unexpected argument "outbox"`},
		{[]string{"bench", "--orders", "-3"}, "--orders -3: want a number >= 1"},
		{[]string{"bench", "--orders", "many"}, `invalid value "many" for flag -orders`},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.say) || stdout.Len() > 0 {
			t.Errorf("labrun-real %s: exit %d, stderr %q, stdout %q; want exit 2 saying %q", strings.Join(tc.args, " "), code, stderr.String(), stdout.String(), tc.say)
		}
	}
}

func TestOneCellOnRealParts(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"matrix", "--variant", "dual-write", "--point", "service.after-commit"}, &stdout, &stderr)
	out := stdout.String()
	if code != 0 || !strings.Contains(out, "dual-write                L") || !strings.Contains(out, "Every cell equals the simulator's") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr.String())
	}
}

// TestOneCellOnPostgreSQL runs a cell with the order database on a
// PostgreSQL server the command starts itself (skipped under -short when
// no server can be started here).
func TestOneCellOnPostgreSQL(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"matrix", "--postgres", "--variant", "mark-before-send", "--point", "relay.after-mark", "--workers", "1"}, &stdout, &stderr)
	if code == 1 && testing.Short() && strings.Contains(stderr.String(), "no PostgreSQL server") {
		t.Skip(stderr.String())
	}
	out := stdout.String()
	if code != 0 || !strings.Contains(out, "Orders and outbox on PostgreSQL") || !strings.Contains(out, "mark-before-send          L") || !strings.Contains(out, "Every cell equals the simulator's") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr.String())
	}
}
