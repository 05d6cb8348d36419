package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// avoidedTerms are German words the lab does not use, each with the one
// it uses for the idea instead: one term per idea.
var avoidedTerms = map[string]string{
	"Fehler-Sweep":  "Failure-Sweep (\"Fehler\" names the mistakes)",
	"des Labs":      "des Labors",
	"das Lab ":      "das Labor",
	"jeder Tür":     "(no door: jeder Weg, überall)",
	"Recovery":      "Wiederherstellung",
	"Verschränkung": "Verzahnung",
	"ihr Replay":    "Wiederholung",
}

// germanText is a German string of the lab's Go code.
var germanText = regexp.MustCompile(`DE:\s*"([^"\n]*)"`)

// TestOneGermanTermPerIdea reads every German text of the lab (its Go
// code's, README.de.md, the stories' and the claims' German lines) and
// fails on a word the lab replaced by another for the same idea.
func TestOneGermanTermPerIdea(t *testing.T) {
	check := func(where, text string) {
		for avoid, use := range avoidedTerms {
			if strings.Contains(text, avoid) {
				t.Errorf("%s: %q, where the lab says %s", where, strings.TrimSpace(text), use)
			}
		}
	}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == "real" || d.Name() == ".git" || d.Name() == "testdata") {
			if err == nil {
				err = filepath.SkipDir
			}
			return err
		}
		name := d.Name()
		german := name == "README.de.md" || strings.HasSuffix(name, ".txt") && strings.Contains(path, "scenarios")
		if !german && !strings.HasSuffix(name, ".go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			where := path + ":" + strconv.Itoa(i+1)
			switch {
			case strings.HasSuffix(name, ".go"):
				for _, m := range germanText.FindAllStringSubmatch(line, -1) {
					check(where, m[1])
				}
			case name == "README.de.md", strings.HasPrefix(line, "#de"), strings.HasPrefix(line, "de "),
				strings.HasPrefix(line, "shows de"), strings.HasPrefix(line, "summary-de"):
				check(where, line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
