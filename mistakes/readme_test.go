package mistakes_test

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// readmeMarker precedes the README's sample of a mistake's diff.
const readmeMarker = "<!-- excerpt of: go test ./mistakes -run OneChange/recover-all -v -->"

// TestTheREADMEShowsRecoverAllsDiff: each README's sample of recover-all's
// diff against the reference (README.md's and README.de.md's) is lines of
// the diff the test above prints, in order, a line "..." standing for
// lines left out.
func TestTheREADMEShowsRecoverAllsDiff(t *testing.T) {
	i := slices.IndexFunc(changes, func(c change) bool { return c.mistake == "recover-all" })
	ref, err := source(changes[i].reference)
	if err != nil {
		t.Fatal(err)
	}
	wrong, err := source(changes[i].wrong)
	if err != nil {
		t.Fatal(err)
	}
	diff, _ := lineDiff(normalize(ref), normalize(wrong))
	for _, readme := range []string{"README.md", "README.de.md"} {
		text, err := os.ReadFile("../" + readme)
		if err != nil {
			t.Fatal(err)
		}
		_, after, found := strings.Cut(string(text), readmeMarker+"\n```\n")
		block, _, ended := strings.Cut(after, "\n```\n")
		if !found || !ended {
			t.Errorf("%s has no code block after %q", readme, readmeMarker)
			continue
		}
		if missing := notAnExcerpt(strings.Split(block, "\n"), strings.Split(diff, "\n")); missing != "" {
			t.Errorf("%s's sample of recover-all's diff has %q where the diff does not; copy it anew from `go test ./mistakes -run OneChange/recover-all -v`:\n%s", readme, missing, diff)
		}
	}
}

// notAnExcerpt returns the first line of shown that is not where an
// excerpt of lines would have it, or "": each run of shown's lines between
// "..." lines follows in lines, one after the other, after the run before.
func notAnExcerpt(shown, lines []string) string {
	at := 0
	for i := 0; i < len(shown); {
		if strings.TrimSpace(shown[i]) == "..." {
			i++
			continue
		}
		j := i
		for j < len(shown) && strings.TrimSpace(shown[j]) != "..." {
			j++
		}
		run := shown[i:j]
		k := at
		for k+len(run) <= len(lines) && !slices.Equal(lines[k:k+len(run)], run) {
			k++
		}
		if k+len(run) > len(lines) {
			return run[0]
		}
		at, i = k+len(run), j
	}
	return ""
}

func TestAnExcerptIsCheckedLineByLine(t *testing.T) {
	lines := []string{"a", "b", "c", "d", "e"}
	for _, c := range []struct {
		shown []string
		want  string
	}{
		{[]string{"a", "b", "...", "d"}, ""},
		{[]string{"b", "c", "...", "e"}, ""},
		{[]string{"a", "c"}, "a"},
		{[]string{"d", "...", "b"}, "b"},
		{[]string{"a", "x"}, "a"},
	} {
		if got := notAnExcerpt(c.shown, lines); got != c.want {
			t.Errorf("%q of %q: %q, want %q", c.shown, lines, got, c.want)
		}
	}
}
