package pglab

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// TestAServerThatCannotStartSaysWhyAtOnce: a TMPDIR the server's user
// cannot enter (go test's own temporary directories are such), and a
// server that exits as it starts, are each reported within seconds, naming
// the cause; before, the first said "fork/exec .../initdb: permission
// denied" and the second waited 30 s.
func TestAServerThatCannotStartSaysWhyAtOnce(t *testing.T) {
	if _, err := binDir(); err != nil {
		if testing.Short() {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	t.Run("a TMPDIR the server's user cannot enter", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("the server runs as this user, who can enter its own TMPDIR")
		}
		closed := t.TempDir() // mode 0700, owned by root
		t.Setenv("TMPDIR", closed)
		start := time.Now()
		s, err := StartServer()
		if err == nil {
			s.Stop()
			t.Fatal("the server started in a TMPDIR its user cannot enter")
		}
		if !strings.Contains(err.Error(), "cannot enter /tmp/") || !strings.Contains(err.Error(), "to its directory "+closed) || !strings.Contains(err.Error(), "set TMPDIR") {
			t.Errorf("the error does not name the directory and the way out: %v", err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("noticed after %s", took)
		}
		if left, _ := os.ReadDir(closed); len(left) > 0 {
			t.Errorf("left behind in TMPDIR: %v", left)
		}
	})
	t.Run("a server that exits as it starts", func(t *testing.T) {
		start := time.Now()
		s, err := startServer("shared_buffers=-5")
		if err == nil {
			s.Stop()
			t.Fatal("the server started with shared_buffers=-5")
		}
		if !strings.Contains(err.Error(), "exited as it started") || !strings.Contains(err.Error(), "shared_buffers") {
			t.Errorf("the error does not carry the server's log: %v", err)
		}
		// At once means before waitReady's 30 s deadline, whose error
		// would say "did not accept connections" (the check above). The
		// time includes initdb, which took 14.8 s in one CI run at a load
		// of 20 on two cores: a tighter bound measures the machine.
		if took := time.Since(start); took >= 30*time.Second {
			t.Errorf("noticed after %s: at the readiness deadline, not when the server exited", took)
		}
		if errors.Is(err, ErrNoServer) {
			t.Errorf("reported as no server at all: %v", err)
		}
	})
}
