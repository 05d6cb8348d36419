package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	goldenfile "outboxlab/internal/golden"
	"outboxlab/internal/longtest"
)

// The READMEs show labrun's output in code blocks. A block preceded by
//
//	<!-- output of: labrun ARGS -->
//
// is the whole output of labrun ARGS; one preceded by
//
//	<!-- excerpt of: labrun ARGS -->
//
// is lines of it in order, where a line "..." stands for lines left out
// and lines without one between them follow each other in the output. A
// table, markdown the README renders, is the whole output of labrun ARGS
// between
//
//	<!-- table of: labrun ARGS -->
//	<!-- end of table -->
// TestTheREADMEsShowWhatLabrunPrints runs each and compares; with -update
// it rewrites the blocks from the runs (an excerpt keeps its first and
// last line of each run of lines, by their first word, and takes what the
// output has between them).

// readmes are the files whose samples are checked, from this package.
var readmes = []string{"../../README.md", "../../README.de.md"}

// endOfTable ends a table's sample.
const endOfTable = "<!-- end of table -->"

// refreshREADMEs is the command that rewrites the samples.
const refreshREADMEs = "go test ./lab/cli -run TestTheREADMEsShowWhatLabrunPrints -update"

// sample is one code block of a README that shows labrun's output.
type sample struct {
	line    int    // of its marker, from 1
	excerpt bool   // an excerpt, not the whole output
	args    string // labrun's arguments
	// start and end are the block's lines (without the fences) in the
	// file's lines: lines[start:end].
	start, end int
}

// samples finds the marked code blocks of a README.
func samples(lines []string) ([]sample, error) {
	var out []sample
	for i, l := range lines {
		var s sample
		if rest, ok := strings.CutPrefix(l, "<!-- table of: labrun"); ok {
			args, _ := strings.CutSuffix(rest, "-->")
			s.line, s.args, s.start = i+1, strings.TrimSpace(args), i+1
			for s.end = s.start; s.end < len(lines) && lines[s.end] != endOfTable; s.end++ {
			}
			if s.end == len(lines) {
				return nil, fmt.Errorf("line %d: the table has no %q after it", i+1, endOfTable)
			}
			out = append(out, s)
			continue
		}
		rest, ok := strings.CutPrefix(l, "<!-- output of: labrun")
		if !ok {
			rest, ok = strings.CutPrefix(l, "<!-- excerpt of: labrun")
			s.excerpt = true
		}
		if !ok {
			continue
		}
		args, ok := strings.CutSuffix(rest, "-->")
		if !ok || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			return nil, fmt.Errorf("line %d: want \"<!-- output of: labrun ARGS -->\" right before a code block", i+1)
		}
		s.line, s.args, s.start = i+1, strings.TrimSpace(args), i+2
		for s.end = s.start; s.end < len(lines) && lines[s.end] != "```"; s.end++ {
		}
		if s.end == len(lines) {
			return nil, fmt.Errorf("line %d: the code block does not end", i+1)
		}
		out = append(out, s)
	}
	return out, nil
}

func TestTheREADMEsShowWhatLabrunPrints(t *testing.T) {
	long := longtest.Long(t, "long_cli") || goldenfile.Update()
	for _, file := range readmes {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(text), "\n")
		found, err := samples(lines)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(found) == 0 {
			t.Errorf("%s: no sample marked: the check checks nothing", file)
		}
		// From the last to the first, so that a rewritten block does not
		// move the ones before it.
		for i := len(found) - 1; i >= 0; i-- {
			s := found[i]
			if !long && gradesAtCourse(strings.Fields(s.args)) {
				continue // the long form's: the summary, the whole matrix, a correct variant's grade
			}
			code, stdout, stderr := runLabrun(strings.Fields(s.args)...)
			if code != 0 {
				t.Errorf("%s:%d: labrun %s: exit %d: %s", file, s.line, s.args, code, stderr)
				continue
			}
			output := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			shown := lines[s.start:s.end]
			want := output
			if s.excerpt {
				var missing []string
				if want, missing = excerptOf(shown, output); len(missing) > 0 {
					t.Errorf("%s:%d: `labrun %s` prints no line like %q, in this order: edit the sample by hand", file, s.line, s.args, missing)
					continue
				}
			}
			if diff := cmp.Diff(strings.Join(shown, "\n")+"\n", strings.Join(want, "\n")+"\n"); diff != "" {
				if goldenfile.Update() {
					lines = append(lines[:s.start], append(append([]string(nil), want...), lines[s.end:]...)...)
					continue
				}
				t.Errorf("%s:%d: the sample is not what `labrun %s` prints (-shown +printed); refresh the READMEs with `%s` and review the diff:\n%s",
					file, s.line, s.args, refreshREADMEs, diff)
			}
		}
		if goldenfile.Update() {
			if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// excerptOf returns the excerpt of output that shown is meant to be: each
// run of shown's lines between "..." lines becomes the output's lines from
// the first line with the run's first word (after the last run) to the
// first line after it with the run's last word. A run whose words output
// does not have is returned as missing.
func excerptOf(shown, output []string) (out, missing []string) {
	at := 0
	for i := 0; i < len(shown); {
		if strings.TrimSpace(shown[i]) == "..." {
			out = append(out, shown[i])
			i++
			continue
		}
		j := i
		for j < len(shown) && strings.TrimSpace(shown[j]) != "..." {
			j++
		}
		run := shown[i:j]
		// A run whose ends begin with the same word (the point lines of
		// labrun list) is found by its ends' first two words.
		key := word
		if len(run) > 1 && word(run[0]) == word(run[len(run)-1]) {
			key = words2
		}
		first, ok := findKey(output, at, key, run[0])
		last := first
		if ok && len(run) > 1 {
			last, ok = findKey(output, first+1, key, run[len(run)-1])
		}
		if !ok {
			out, missing = append(out, run...), append(missing, run...)
		} else {
			out = append(out, output[first:last+1]...)
			at = last + 1
		}
		i = j
	}
	return out, missing
}

// word is a line's first word ("" for a blank line).
func word(line string) string {
	if f := strings.Fields(line); len(f) > 0 {
		return f[0]
	}
	return ""
}

// words2 is a line's first two words.
func words2(line string) string {
	f := strings.Fields(line)
	return strings.Join(f[:min(2, len(f))], " ")
}

// findKey returns the first line from from on whose key is line's.
func findKey(lines []string, from int, key func(string) string, line string) (int, bool) {
	for i := from; i < len(lines); i++ {
		if key(lines[i]) == key(line) {
			return i, true
		}
	}
	return 0, false
}

// TestAStaleSampleIsCaught: a README whose sample shows "(+3 more)" where
// labrun prints "(+4 more)", or leaves a variant out without "...", fails
// the comparison; an excerpt made by excerptOf passes it.
func TestAStaleSampleIsCaught(t *testing.T) {
	output := []string{"outbox  ✓", "cdc  ✓", "dual-write  LOST at service.after-commit (+4 more)", "publish-first  PHANTOM", "separate-tx  LOST"}
	for _, c := range []struct {
		shown []string
		ok    bool
	}{
		{[]string{"outbox  ✓", "cdc  ✓", "dual-write  LOST at service.after-commit (+4 more)", "..."}, true},
		{[]string{"outbox  ✓", "...", "publish-first  PHANTOM", "..."}, true},
		{[]string{"outbox  ✓", "cdc  ✓", "dual-write  LOST at service.after-commit (+3 more)", "..."}, false},
		{[]string{"outbox  ✓", "dual-write  LOST at service.after-commit (+4 more)", "..."}, false},
		{[]string{"outbox  ✓", "...", "publish-first  MISMATCH", "..."}, false},
		{[]string{"outbox  ✓", "...", "no-such-variant  ✓"}, false},
	} {
		excerpt, missing := excerptOf(c.shown, output)
		same := len(missing) == 0 && cmp.Equal(c.shown, excerpt)
		if same != c.ok {
			t.Errorf("%q against %q: as printed %v, want %v", c.shown, output, same, c.ok)
		}
	}
	if _, err := samples([]string{"<!-- output of: labrun list -->", "no code block"}); err == nil {
		t.Error("a marker without its code block was accepted")
	}
	if _, err := samples([]string{"<!-- table of: labrun claims --format markdown -->", "| a | b |"}); err == nil {
		t.Error("a table without its end was accepted")
	}
}

// TestTheREADMEsNameNoMissingPath: every ./path a README's commands name
// is there, in the module or in real/ (whose commands run after `cd
// real`), but for what a README tells the reader to make: their own
// package or module (./mine, ./mein, ../mylab, ../meinlabor), a binary it
// builds (./courselab, ./labrun, ./outbox-relay, ./billing-consumer).
func TestTheREADMEsNameNoMissingPath(t *testing.T) {
	own := map[string]bool{"mine": true, "mein": true, "mylab": true, "meinlabor": true, "courselab": true, "labrun": true, "outbox-relay": true, "billing-consumer": true}
	path := regexp.MustCompile(`(^|[^.\w])\./([A-Za-z][\w/.-]*)`)
	for _, file := range readmes {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(text), "\n") {
			for _, m := range path.FindAllStringSubmatch(line, -1) {
				p := strings.TrimRight(m[2], "/.")
				if own[strings.Split(p, "/")[0]] {
					continue
				}
				if _, err := os.Stat(filepath.Join("../..", p)); err == nil {
					continue
				}
				if _, err := os.Stat(filepath.Join("../../real", p)); err == nil {
					continue
				}
				t.Errorf("%s:%d: ./%s is not in the module (nor in real/)", file, i+1, p)
			}
		}
	}
}
