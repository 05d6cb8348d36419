package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestVerifyConsumerBadUsageSaysWhatIsWrongAndExitsTwo(t *testing.T) {
	for _, tc := range []struct {
		args []string
		say  string
	}{
		{[]string{"verify", "--relay", "x", "--consumer", "y"}, "--relay and --consumer: grade one program at a time"},
		{[]string{"verify", "--consumer", "x", "--lease", "1s"}, "--lease is the relay's"},
		{[]string{"verify", "--consumer", "x", "--id-header", "id"}, "--id-header is the relay's"},
		{[]string{"verify", "--consumer", "x", "--sent-by", "slot"}, "--sent-by is the relay's"},
		{[]string{"verify", "--consumer", "x", "--fault", "stall@1"}, "--fault is the relay's"},
		{[]string{"verify", "--consumer", "x", "--round", "kill-on-arrival"}, `--round: unknown round "kill-on-arrival" (valid: three-instances, kill-after-effect`},
		{[]string{"verify", "--consumer", "x", "--workers", "0"}, "--workers 0: want a number >= 1"},
		{[]string{"verify", "--consumer", "x", "--mapping", "/no/such/mapping.sql"}, "--mapping: open /no/such/mapping.sql"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.say) || stdout.Len() > 0 {
			t.Errorf("labrun-real %s: exit %d, stderr %q; want exit 2 saying %q", strings.Join(tc.args, " "), code, stderr.String(), tc.say)
		}
	}
}

// TestAConsumerThatCannotRunIsBadUsage: a consumer command the shell
// cannot find is the user's mistake (exit 2), not a verdict.
func TestAConsumerThatCannotRunIsBadUsage(t *testing.T) {
	code, stdout, stderr := verifyOn(t, "--consumer", "/no/such/consumer --flag", "--round", "poison")
	if code != 2 || !strings.Contains(stderr, "the command cannot be run") || !strings.Contains(stderr, "not found") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}
