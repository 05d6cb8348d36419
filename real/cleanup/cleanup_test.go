package cleanup

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// envVictim makes the test binary a program that registers what it starts
// and then waits to be interrupted (see victim).
const envVictim = "OUTBOXLAB_CLEANUP_VICTIM"

func TestMain(m *testing.M) {
	if os.Getenv(envVictim) != "" {
		victim()
	}
	if err := Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// victim makes a temporary directory, starts a child prepared and tracked
// (a sleep), and a second process that knows nothing of this one: its own
// session, no parent-death signal, working inside the directory (as a
// PostgreSQL backend works in its data directory). It says "ready DIR
// PID PID" and waits.
func victim() {
	fail := func(err error) {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	if err := Start(); err != nil {
		fail(err)
	}
	dir, err := MkdirTemp("", "outboxlab-cleanup-")
	if err != nil {
		fail(err)
	}
	child := exec.Command("sleep", "300")
	Prepare(child, syscall.SIGKILL)
	if err := child.Start(); err != nil {
		fail(err)
	}
	if _, err := Track(child, syscall.SIGKILL); err != nil {
		fail(err)
	}
	stray := exec.Command("sleep", "300")
	stray.Dir = dir
	stray.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := stray.Start(); err != nil {
		fail(err)
	}
	fmt.Printf("ready %s %d %d\n", dir, child.Process.Pid, stray.Process.Pid)
	select {}
}

// startVictim starts the victim and reads what it registered.
func startVictim(t *testing.T) (cmd *exec.Cmd, stderr *strings.Builder, dir string, pids []int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envVictim+"=1")
	stderr = &strings.Builder{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	f := strings.Fields(line)
	if err != nil || len(f) != 4 || f[0] != "ready" {
		cmd.Process.Kill()
		t.Fatalf("the victim said %q (%v); stderr: %s", line, err, stderr)
	}
	for _, s := range f[2:] {
		pid, _ := strconv.Atoi(s)
		pids = append(pids, pid)
	}
	return cmd, stderr, f[1], pids
}

// leftBehind waits up to ten seconds for the processes to end and the
// directory to go, and says what is still there.
func leftBehind(dir string, pids []int) string {
	var left []string
	waitFor(func() bool {
		left = nil
		for _, pid := range pids {
			if alive(pid) {
				left = append(left, fmt.Sprintf("process %d", pid))
			}
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			left = append(left, "directory "+dir)
		}
		return len(left) == 0
	}, 10*time.Second)
	return strings.Join(left, ", ")
}

func alive(pid int) bool {
	for _, p := range processes() {
		if p.pid == pid {
			return true
		}
	}
	return false
}

// TestNothingIsLeftBehind interrupts the victim in each way a program
// ends: SIGINT and SIGTERM reach its handler, which exits 128 + the
// signal; SIGKILL reaches nothing but the kernel, and the janitor cleans
// up. Each time the tracked child, the stray process inside the directory
// and the directory are gone.
func TestNothingIsLeftBehind(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, stderr, dir, pids := startVictim(t)
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("the victim ended with %v", err)
			}
			if sig != syscall.SIGKILL {
				if code := exit.ExitCode(); code != 128+int(sig) {
					t.Errorf("exit code %d, want %d; stderr: %s", code, 128+int(sig), stderr)
				}
				if !strings.Contains(stderr.String(), "stopped 1 process group(s), removed 1 temporary directory") {
					t.Errorf("the handler did not say what it did: %s", stderr)
				}
			}
			if left := leftBehind(dir, pids); left != "" {
				t.Errorf("after %s: %s left behind; stderr: %s", sig, left, stderr)
			}
		})
	}
}

// TestATrackedChildIsKilledWhileStopping: once the handler runs, a child
// started meanwhile is killed as it is tracked, and no directory is made.
func TestATrackedChildIsKilledWhileStopping(t *testing.T) {
	reg.mu.Lock()
	reg.stopping = true
	reg.mu.Unlock()
	defer func() {
		reg.mu.Lock()
		reg.stopping = false
		reg.mu.Unlock()
	}()
	child := exec.Command("sleep", "300")
	Prepare(child, syscall.SIGKILL)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := Track(child, syscall.SIGKILL); !errors.Is(err, ErrStopping) {
		t.Errorf("Track while stopping: %v, want ErrStopping", err)
	}
	if err := child.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("the child ended with %v, want killed", err)
	}
	if _, err := MkdirTemp("", "outboxlab-cleanup-"); !errors.Is(err, ErrStopping) {
		t.Errorf("MkdirTemp while stopping: %v, want ErrStopping", err)
	}
}
