package outboxlab

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTheRootDocListsEveryPackage: the package list in doc.go names every
// directory with Go code (a nested one by its last element, or its path).
func TestTheRootDocListsEveryPackage(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || path == "." {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
			return filepath.SkipDir
		}
		gofiles, _ := filepath.Glob(filepath.Join(path, "*.go"))
		if len(gofiles) == 0 {
			return nil
		}
		if !strings.Contains(string(doc), "//\t"+path) && !strings.Contains(string(doc), filepath.Base(path)) {
			t.Errorf("doc.go does not list package %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
