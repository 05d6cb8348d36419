package outboxlab

import (
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
)

// written finds a file a command writes: go build -o NAME, or > NAME.
var written = regexp.MustCompile(`(?:go build -o |> )([A-Za-z0-9_./$*-]+)`)

// TestWhatTheREADMEsWriteIsIgnored: a file the READMEs' commands write
// into the clone (a binary, a page, a JSON) is ignored by git, so that a
// reader's clone does not fill with untracked files; a command block that
// starts with cd DIR writes there.
func TestWhatTheREADMEsWriteIsIgnored(t *testing.T) {
	ignore, err := os.ReadFile(".gitignore")
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, line := range strings.Split(string(ignore), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, line)
		}
	}
	ignored := func(file string) bool {
		for _, p := range patterns {
			if ok, _ := path.Match(strings.TrimPrefix(p, "/"), file); ok {
				return true
			}
			if ok, _ := path.Match(p, path.Base(file)); ok && !strings.HasPrefix(p, "/") {
				return true
			}
		}
		return false
	}
	found := 0
	for _, readme := range []string{"README.md", "README.de.md"} {
		data, err := os.ReadFile(readme)
		if err != nil {
			t.Fatal(err)
		}
		blocks := strings.Split(string(data), "```sh\n")
		for _, b := range blocks[1:] {
			block, _, _ := strings.Cut(b, "```")
			dir := ""
			if d, ok := strings.CutPrefix(block, "cd "); ok {
				dir, _, _ = strings.Cut(d, "\n")
			}
			for _, m := range written.FindAllStringSubmatch(block, -1) {
				if strings.HasPrefix(m[1], "/") || m[1] == "/dev/null" {
					continue
				}
				found++
				if file := path.Join(dir, m[1]); !ignored(file) {
					t.Errorf("%s writes %s, which git does not ignore (.gitignore)", readme, file)
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("no command of the READMEs writes a file: the parse is broken")
	}
}
