package outboxlab

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exerciseNames are the exercises, one package each.
var exerciseNames = []string{"recovery", "sendfirst", "dedup", "ordering"}

// TestNoSolutionSitsBesideItsStarter: an exercise's directory holds its
// starter and no solution (a solution.go beside starter.go was one click
// away); the solution is in _solutions, and the overlay CI grades it with
// puts it in the starter's place.
func TestNoSolutionSitsBesideItsStarter(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("exercises", "_solutions", "overlay.json"))
	if err != nil {
		t.Fatal(err)
	}
	var overlay struct{ Replace map[string]string }
	if err := json.Unmarshal(data, &overlay); err != nil {
		t.Fatal(err)
	}
	for _, name := range exerciseNames {
		files, err := filepath.Glob(filepath.Join("exercises", name, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(filepath.Base(f), "solution") || strings.Contains(string(src), "go:build solution") {
				t.Errorf("%s: a solution beside the starter", f)
			}
		}
		starter := "exercises/" + name + "/starter.go"
		solution, ok := overlay.Replace[starter]
		if !ok {
			t.Errorf("_solutions/overlay.json does not put a solution in %s's place", starter)
			continue
		}
		got, err := os.ReadFile(solution)
		want, err2 := os.ReadFile(starter)
		if err != nil || err2 != nil || string(got) == string(want) || !strings.HasPrefix(string(got), "package "+name) {
			t.Errorf("%s: no solution of package %s that differs from the starter (%v, %v)", solution, name, err, err2)
		}
	}
}
