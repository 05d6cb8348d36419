package mutation

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestEverySchemaBuilds: the mutated copies of the reference path compile,
// each build together.
func TestEverySchemaBuilds(t *testing.T) {
	ms, err := Generate("..", Reference)
	if err != nil {
		t.Fatal(err)
	}
	schemata, err := Schemata("..", ms)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d mutants in %d builds", len(ms), len(schemata))
	for i, s := range schemata {
		overlay, err := WriteOverlay(t.TempDir(), "..", s)
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("go", "build", "-overlay", overlay, "-o", filepath.Join(t.TempDir(), "bin"), "../cmd/labrun").CombinedOutput()
		if err != nil {
			t.Errorf("build %d: %v\n%s", i, err, out)
		}
	}
	_ = os.Remove
}
