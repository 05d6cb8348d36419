package verify_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestTheRelaysKnowOnlyTheContract: no relay program depends on a
// package of the lab; the only package of this module they import is
// their own library, relays/relay (the reference's steps, which the
// broken ones replace one of). A relay that imported the lab's outbox or
// check could agree with its judge by construction.
func TestTheRelaysKnowOnlyTheContract(t *testing.T) {
	out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "list", "-deps", "-f", "{{.ImportPath}}", "./relays/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	n := 0
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "outboxlab") && !strings.HasPrefix(pkg, "outboxlab/real/verify/relays/") {
			t.Errorf("a relay depends on %s, a package of the lab", pkg)
		}
		n++
	}
	if n < 50 {
		t.Fatalf("go list ./relays/... named %d packages: did it list the relays?\n%s", n, out)
	}
}
