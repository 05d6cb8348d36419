package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"outboxlab/real/cleanup"
	"outboxlab/real/sqlitelab"
)

func TestMain(m *testing.M) {
	if args := os.Getenv(envAsCommand); args != "" { // a victim of TestAnInterruptedRunLeavesNothingBehind
		os.Args = append([]string{"labrun-real"}, strings.Split(args, "\n")...)
		main()
	}
	sqlitelab.Child()
	cleanup.MustStart()
	os.Exit(m.Run())
}

func TestBadInputSaysWhatIsWrongAndExitsTwo(t *testing.T) {
	for _, tc := range []struct {
		args []string
		say  string
	}{
		{nil, "usage:"},
		{[]string{"frob"}, `unknown command "frob" (valid: matrix, merge, run, bench, verify, help)`},
		{[]string{"matrix", "--variant", "listen-to-yourself"}, `unknown variant "listen-to-yourself" (the real parts run: outbox, dual-write`},
		{[]string{"matrix", "--variant", "cdc"}, `variant "cdc": not in the matrix on SQLite: it runs on PostgreSQL only (labrun-real matrix --postgres)`},
		{[]string{"matrix", "--variant", "claim-without-lock"}, `variant "claim-without-lock": not in the matrix on SQLite: SQLite's one writer runs the claims one after another`},
		{[]string{"matrix", "--point", "clock-skew"}, `unknown point "clock-skew" (valid: service.before-commit`},
		{[]string{"matrix", "--point", "slow-commit"}, `row "slow-commit": not in the matrix on SQLite: it runs on PostgreSQL only (--postgres)`},
		{[]string{"matrix", "--workers", "0"}, "--workers 0: want a number >= 1"},
		{[]string{"matrix", "--relays", "4"}, "--relays 4: want 2 or 3"},
		{[]string{"matrix", "--shard", "3/2"}, `--shard "3/2": want I/N with 1 <= I <= N`},
		{[]string{"matrix", "--format", "xml"}, `--format "xml": want table or json`},
		{[]string{"matrix", "outbox"}, `unexpected argument "outbox"`},
		{[]string{"merge"}, "name the shards' JSON files"},
		{[]string{"merge", "no-such-file.json"}, "no-such-file.json: open no-such-file.json: no such file"},
		{[]string{"run", "--variant", "outbox"}, "want --variant and --point"},
		{[]string{"run", "--variant", "outbox", "--point", "relay.after-send@x"}, `occurrence "x" is not a whole number`},
		{[]string{"run", "--variant", "offset-by-id", "--point", "stall-outage"}, "it needs 2 relays, the variant allows 1"},
		{[]string{"run", "--variant", "outbox", "--point", "relay.after-send", "--relays", "4"}, "unknown relay count 4 (valid: 1 to 3 for outbox)"},
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

func TestVerifyBadUsageSaysWhatIsWrongAndExitsTwo(t *testing.T) {
	for _, tc := range []struct {
		args []string
		say  string
	}{
		{[]string{"verify"}, "--relay is missing"},
		{[]string{"verify", "--relay", "x", "--round", "stal"}, `--round: unknown round "stal" (valid: three-instances, kill-on-arrival`},
		{[]string{"verify", "--relay", "x", "--lease", "10ms"}, "--lease 10ms: want at least 200ms"},
		{[]string{"verify", "--relay", "x", "--random", "-1"}, "--random -1: want a number >= 0"},
		{[]string{"verify", "--relay", "x", "--workers", "0"}, "--workers 0: want a number >= 1"},
		{[]string{"verify", "--relay", "x", "--id-header", ""}, "--id-header is empty"},
		{[]string{"verify", "--relay", "x", "--mapping", "/no/such/mapping.sql"}, "--mapping: open /no/such/mapping.sql"},
		{[]string{"verify", "--relay", "x", "--lang", "fr"}, `"fr" is not a language`},
		{[]string{"verify", "--relay", "x", "--sent-by", "offsets"}, `unknown --sent-by "offsets" (valid: status, slot)`},
		{[]string{"verify", "--relay", "x", "extra"}, `unexpected argument "extra"`},
		{[]string{"verify", "--relay", "x", "--seed", "minus"}, `invalid value "minus" for flag -seed`},
		{[]string{"verify", "--relay", "x", "--repeat", "0"}, "--repeat 0: want a number >= 1"},
		{[]string{"verify", "--relay", "x", "--fault", "stall"}, `--fault: "stall": want KIND@N`},
		{[]string{"verify", "--relay", "x", "--fault", "nap@3"}, `--fault: unknown fault "nap" (valid: kill-on-arrival`},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.say) || stdout.Len() > 0 {
			t.Errorf("labrun-real %s: exit %d, stderr %q; want exit 2 saying %q", strings.Join(tc.args, " "), code, stderr.String(), tc.say)
		}
	}
}

// verifyOn runs labrun-real verify, skipping under -short when no
// PostgreSQL server can be started here.
func verifyOn(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"verify"}, args...), &stdout, &stderr)
	if code == 1 && testing.Short() && strings.Contains(stderr.String(), "no PostgreSQL server") {
		t.Skip(stderr.String())
	}
	return code, stdout.String(), stderr.String()
}

// TestARelayThatCannotRunIsBadUsage: a command the shell cannot find is
// the user's mistake (exit 2, with the shell's own words), not a verdict.
func TestARelayThatCannotRunIsBadUsage(t *testing.T) {
	code, stdout, stderr := verifyOn(t, "--relay", "/no/such/relay --flag", "--round", "kill-before-answer")
	if code != 2 || !strings.Contains(stderr, "the command cannot be run") || !strings.Contains(stderr, "not found") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}
