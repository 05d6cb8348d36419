package outboxlab

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"outboxlab/scenarios"
)

// TestTheWorkedExamplesNameWhatIsThere keeps CONTRIBUTING.md's worked
// examples honest: every file they name exists, each name a list item
// shows (a Go name, a number) is in the files that item names, and the
// crash point's example names every golden that shows every crash row,
// so that a new output of the matrix cannot go unsaid.
func TestTheWorkedExamplesNameWhatIsThere(t *testing.T) {
	text, err := os.ReadFile("CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := workedExamples(string(text))
	if len(sections) != 2 {
		t.Fatalf("CONTRIBUTING.md has %d sections \"## Worked example: ...\", want 2 (a crash point, a fault kind)", len(sections))
	}
	for _, p := range exampleProblems(sections, os.ReadFile) {
		t.Error(p)
	}
	shown, err := goldensShowingEveryCrashRow()
	if err != nil {
		t.Fatal(err)
	}
	named := backticked(sections["a crash point"])
	for _, f := range shown {
		if !slices.Contains(named, f) {
			t.Errorf("%s shows every crash row and the crash point's worked example does not name it", f)
		}
	}
}

// TestAWorkedExampleThatDriftedIsFound: an example naming a file that is
// not there, and one showing a name its file does not hold, are named.
func TestAWorkedExampleThatDriftedIsFound(t *testing.T) {
	sections := map[string]string{"a fault kind": "- `sim/fault_outagerestart.go`: `FaultOutageRestart` and `outageRestarted`\n" +
		"- `sim/fault_gone.go`: `Rows`\n"}
	got := exampleProblems(sections, os.ReadFile)
	want := []string{
		"a fault kind: `outageRestarted` is not in sim/fault_outagerestart.go",
		"a fault kind: sim/fault_gone.go is not there",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// workedExamples returns the text of each "## Worked example: X" section
// by X.
func workedExamples(text string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(text, "\n## ")[1:] {
		title, body, _ := strings.Cut(part, "\n")
		if name, ok := strings.CutPrefix(title, "Worked example: "); ok {
			out[name] = body
		}
	}
	return out
}

var (
	backtick = regexp.MustCompile("`([^`]+)`")
	// pathLike is a file of the tree: a folder and a name with an
	// extension, or a file at the top.
	pathLike = regexp.MustCompile(`^([\w.-]+/)*[\w-]+\.(go|md|txt|json)$`)
	// nameLike is a name a list item shows: a Go name or a number.
	nameLike = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$|^[0-9]+$`)
)

// backticked returns what sits between backticks in text, in order.
func backticked(text string) []string {
	var out []string
	for _, m := range backtick.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// exampleProblems returns every file the sections name that read cannot
// read, and every name a list item shows that is not in each file the
// item names (as a whole word).
func exampleProblems(sections map[string]string, read func(string) ([]byte, error)) []string {
	var out []string
	names := make([]string, 0, len(sections))
	for name := range sections {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, section := range names {
		for _, line := range strings.Split(sections[section], "\n") {
			var files, shown []string
			for _, tok := range backticked(line) {
				switch {
				case pathLike.MatchString(tok):
					files = append(files, tok)
				case nameLike.MatchString(tok):
					shown = append(shown, tok)
				}
			}
			for _, f := range files {
				src, err := read(f)
				if err != nil {
					out = append(out, section+": "+f+" is not there")
					continue
				}
				if !strings.HasPrefix(line, "- ") {
					continue // prose names files; a list item says what is in them
				}
				for _, n := range shown {
					if !regexp.MustCompile(`\b` + regexp.QuoteMeta(n) + `\b`).Match(src) {
						out = append(out, section+": `"+n+"` is not in "+f)
					}
				}
			}
		}
	}
	return out
}

// goldensShowingEveryCrashRow returns labrun's goldens and the READMEs
// that name every crash row of the matrix.
func goldensShowingEveryCrashRow() ([]string, error) {
	var out []string
	files := []string{"README.md", "README.de.md"}
	err := filepath.WalkDir("lab/cli/testdata", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, filepath.ToSlash(path))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(scenarios.CrashPoints, func(p string) bool { return !strings.Contains(string(src), p) }) {
			out = append(out, f)
		}
	}
	return out, nil
}
