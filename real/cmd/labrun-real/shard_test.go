package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShardsMergeIntoTheUnshardedMatrix runs a matrix whole and in two
// shards, merges the shards' JSON with labrun-real merge, and gets the
// whole matrix's JSON byte for byte. The cells are ones whose verdicts no
// race decides (a race cell's rate may differ from run to run).
func TestShardsMergeIntoTheUnshardedMatrix(t *testing.T) {
	matrix := []string{"matrix", "--format", "json", "--variant", "outbox", "--variant", "dual-write",
		"--point", "service.after-commit", "--point", "consumer.after-commit", "--point", "relay.after-send"}
	runJSON := func(args ...string) []byte {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(append(matrix, args...), &stdout, &stderr); code != 0 {
			t.Fatalf("labrun-real %s: exit %d\n%s%s", strings.Join(append(matrix, args...), " "), code, stdout.String(), stderr.String())
		}
		return stdout.Bytes()
	}
	whole := runJSON()
	dir := t.TempDir()
	var files []string
	for _, shard := range []string{"1/2", "2/2"} {
		name := filepath.Join(dir, strings.ReplaceAll(shard, "/", "-of-")+".json")
		if err := os.WriteFile(name, runJSON("--shard", shard), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	var merged, stderr bytes.Buffer
	if code := run(append([]string{"merge"}, files...), &merged, &stderr); code != 0 {
		t.Fatalf("labrun-real merge: exit %d\n%s", code, stderr.String())
	}
	if !bytes.Equal(merged.Bytes(), whole) {
		t.Errorf("the merged shards differ from the whole matrix:\nmerged:\n%s\nwhole:\n%s", merged.String(), whole)
	}
	one, _ := os.ReadFile(files[0])
	if bytes.Equal(one, whole) || bytes.Count(one, []byte(`"variant":`)) == 0 {
		t.Errorf("shard 1/2 holds all of the matrix or none of it:\n%s", one)
	}
	var again bytes.Buffer
	if code := run([]string{"merge", files[0], files[0]}, &again, &stderr); code != 2 || !strings.Contains(stderr.String(), "is in two shards") {
		t.Errorf("merging a shard with itself: exit %d, %s", code, stderr.String())
	}
}
