package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writeShards runs labrun explore --shard i/n --format json for every
// shard and returns the files it wrote.
func writeShards(t *testing.T, n int, args ...string) []string {
	t.Helper()
	var files []string
	for i := 1; i <= n; i++ {
		shard := []string{"explore", "--shard", strings.Join([]string{itoa(i), itoa(n)}, "/"), "--format", "json"}
		code, stdout, stderr := runLabrun(append(shard, args...)...)
		if code > 1 {
			t.Fatalf("shard %d/%d: exit %d, %s", i, n, code, stderr)
		}
		file := filepath.Join(t.TempDir(), itoa(i)+".json")
		if err := os.WriteFile(file, []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, file)
	}
	return files
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestExploreShardsMerge: the JSON of three shards, merged, is the
// unsharded run's byte for byte, for a correct variant and for a mistake
// whose first broken schedules lie in different shards (and must be
// shrunk again in the merge).
func TestExploreShardsMerge(t *testing.T) {
	for _, args := range [][]string{
		{"--variant", "outbox", "--runs", "120", "--seed", "1"},
		{"--variant", "no-fencing", "--runs", "80", "--seed", "1"},
	} {
		t.Run(args[1], func(t *testing.T) {
			wholeCode, whole, stderr := runLabrun(append([]string{"explore", "--format", "json"}, args...)...)
			if wholeCode > 1 {
				t.Fatalf("unsharded: exit %d, %s", wholeCode, stderr)
			}
			files := writeShards(t, 3, args...)
			// In any order.
			code, merged, stderr := runLabrun("explore", "merge", files[2], files[0], files[1])
			if code != wholeCode || merged != whole {
				t.Errorf("merge: exit %d (unsharded %d), %s\nmerged:\n%s\nunsharded:\n%s", code, wholeCode, stderr, merged, whole)
			}
		})
	}
}

func TestExploreMergeRefuses(t *testing.T) {
	files := writeShards(t, 3, "--variant", "no-fencing", "--runs", "60")
	other := writeShards(t, 3, "--variant", "no-fencing", "--runs", "61")
	for _, c := range []struct {
		files []string
		want  string
	}{
		{[]string{files[0], files[1], files[1], files[2]}, "shard 2/3 is given twice"},
		{[]string{files[0], files[2]}, "shard(s) 2/3 missing"},
		{[]string{files[0], files[1], other[2]}, "--runs 60 --seed 1, but"},
		{nil, "name the shards' JSON files"},
	} {
		code, _, stderr := runLabrun(append([]string{"explore", "merge"}, c.files...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("merge %v: exit %d, %q; want exit 2 and %q", c.files, code, stderr, c.want)
		}
	}
}

func TestExploreBadShard(t *testing.T) {
	for _, shard := range []string{"0/2", "3/2", "x", "1/0"} {
		code, _, stderr := runLabrun("explore", "--variant", "outbox", "--runs", "1", "--format", "json", "--shard", shard)
		if code != 2 || !strings.Contains(stderr, "want I/N with 1 <= I <= N") {
			t.Errorf("--shard %s: exit %d, %q", shard, code, stderr)
		}
	}
	if code, _, stderr := runLabrun("explore", "--variant", "outbox", "--shard", "1/2"); code != 2 || !strings.Contains(stderr, "--format json") {
		t.Errorf("--shard without --format json: exit %d, %q", code, stderr)
	}
}
