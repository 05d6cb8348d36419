package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"outboxlab/real/cleanup"
	"outboxlab/real/pglab"
)

// The environment of a victim: envAsCommand makes the test binary run
// labrun-real's main with these arguments; envVictim makes
// TestInterruptVictim run a matrix on PostgreSQL; envMark marks every
// process of one victim, so that the test finds what it left.
const (
	envAsCommand = "OUTBOXLAB_AS_LABRUN_REAL"
	envVictim    = "OUTBOXLAB_INTERRUPT_VICTIM"
	envMark      = "OUTBOXLAB_INTERRUPT_MARK"
)

// victimArgs is the run a victim is interrupted in: a PostgreSQL server
// started, a matrix cell at full depth (twelve runs, each with four
// processes), the server stopped; about four seconds.
var victimArgs = []string{"matrix", "--postgres", "--full", "--variant", "outbox", "--point", "relay.after-send", "--workers", "1"}

// verifyVictimArgs is a verify run a victim is interrupted in: a server
// started, a round whose relays do nothing but wait.
var verifyVictimArgs = []string{"verify", "--relay", "sleep 60", "--round", "kill-on-arrival"}

// TestInterruptVictim is the victim of a test timeout: run with
// -test.timeout shorter than the matrix, it panics in the middle of it, as
// go test -timeout does, and no handler runs.
func TestInterruptVictim(t *testing.T) {
	if os.Getenv(envVictim) == "" {
		t.Skip("the victim of TestAnInterruptedRunLeavesNothingBehind")
	}
	run(victimArgs, os.Stdout, os.Stderr)
}

// TestAnInterruptedRunLeavesNothingBehind interrupts labrun-real matrix
// --postgres at random moments (from the server's start to its stop): SIGINT
// and SIGTERM to the parent only, SIGKILL, and a test binary's -test.timeout
// panic. Each time, once the victim ended, no process it started is left
// (relays, billing, the service, the server and its backends, the
// janitor) and its TMPDIR is empty. Without the handler and the janitor,
// SIGINT left the server running (ppid 1) and its directory, and SIGKILL
// and the timeout left the relay and billing processes too.
func TestAnInterruptedRunLeavesNothingBehind(t *testing.T) {
	if err := pglab.Available(); err != nil {
		if testing.Short() {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	trials, seed := 1, uint64(1)
	if os.Getenv("OUTBOXLAB_REAL_FULL") != "" {
		trials = 4
	}
	if s := os.Getenv("OUTBOXLAB_INTERRUPT_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	random := rand.New(rand.NewPCG(seed, 0))
	for _, way := range []string{"SIGINT", "SIGTERM", "SIGKILL", "timeout"} {
		for i := range trials {
			at := time.Duration(random.Int64N(int64(4 * time.Second)))
			t.Run(fmt.Sprintf("%s after %s", way, at.Round(time.Millisecond)), func(t *testing.T) {
				interrupt(t, way, at, victimArgs, fmt.Sprintf("%d-%s-%d", os.Getpid(), way, i))
			})
		}
	}
	// labrun-real verify, interrupted as its server starts (initdb runs
	// for a second or more) and at a moment drawn.
	for _, way := range []string{"SIGTERM", "SIGINT"} {
		for i, at := range []time.Duration{200 * time.Millisecond, time.Duration(random.Int64N(int64(4 * time.Second)))} {
			t.Run(fmt.Sprintf("verify, %s after %s", way, at.Round(time.Millisecond)), func(t *testing.T) {
				interrupt(t, way, at, verifyVictimArgs, fmt.Sprintf("%d-verify-%s-%d", os.Getpid(), way, i))
			})
		}
	}
	t.Logf("moments drawn with OUTBOXLAB_INTERRUPT_SEED=%d", seed)
}

// interrupt starts a victim with a TMPDIR of its own and ends it the way
// named at the moment given, then looks for what it left. A victim
// stopped by SIGINT or SIGTERM exits 130 or 143, as a shell reports a
// death by the signal, and says nothing that reads like a failed cell or
// round (before, SIGTERM during the server's start exited 1 and printed
// initdb's output as the run's error).
func interrupt(t *testing.T, way string, at time.Duration, args []string, mark string) {
	tmp, err := os.MkdirTemp("", "outboxlab-interrupt-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil { // the server's user must enter it
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, envMark+"="+mark)
	if way == "timeout" {
		cmd.Args = append(cmd.Args, "-test.run=^TestInterruptVictim$", "-test.timeout="+(at+500*time.Millisecond).String())
		cmd.Env = append(cmd.Env, envVictim+"=1")
	} else {
		cmd.Env = append(cmd.Env, envAsCommand+"="+strings.Join(args, "\n"))
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err2 error
	select {
	case err2 = <-done:
		t.Logf("the victim ended before the %s: %v", way, err2)
	case <-time.After(at):
		switch way {
		case "SIGINT":
			cmd.Process.Signal(syscall.SIGINT)
		case "SIGTERM":
			cmd.Process.Signal(syscall.SIGTERM)
		case "SIGKILL":
			cmd.Process.Kill()
		}
		select {
		case err2 = <-done:
		case <-time.After(40 * time.Second):
			cmd.Process.Kill()
			err2 = <-done
			t.Errorf("the victim did not end within 40 s of the %s", way)
		}
	}
	if left := leftBehind(mark, tmp); left != "" {
		t.Errorf("%s at %s (the victim ended: %v) left behind:\n%s\nthe victim said:\n%s", way, at, err2, left, out.String())
	}
	signal, ok := map[string]int{"SIGINT": 130, "SIGTERM": 143}[way]
	if !ok || err2 == nil {
		return // killed, or it ended before the signal
	}
	if cmd.ProcessState.ExitCode() != signal {
		t.Errorf("%s at %s: the victim exited %d, want %d:\n%s", way, at, cmd.ProcessState.ExitCode(), signal, out.String())
	}
	for _, said := range []string{"initdb", "labrun-real matrix:", "labrun-real verify:", "round "} {
		if strings.Contains(out.String(), said) {
			t.Errorf("%s at %s: the victim said %q, as if a cell or round failed:\n%s", way, at, said, out.String())
		}
	}
}

// leftBehind waits up to 30 s for every process of the victim (marked, or
// working inside its TMPDIR) to end and its TMPDIR to empty, and says what
// is still there.
func leftBehind(mark, tmp string) string {
	var left []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		left = processesOf(mark, tmp)
		entries, _ := os.ReadDir(tmp)
		for _, e := range entries {
			left = append(left, "in TMPDIR: "+e.Name())
		}
		if len(left) == 0 {
			return ""
		}
	}
	return strings.Join(left, "\n")
}

// processesOf lists the live processes whose environment carries the mark
// (PostgreSQL writes its process titles over its environment) or that
// work inside tmp.
func processesOf(mark, tmp string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil || zombie(stat) {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if bytes.Contains(env, []byte(envMark+"="+mark+"\x00")) || cleanup.Inside(pid, tmp) {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			out = append(out, fmt.Sprintf("process %d: %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		}
	}
	return out
}

// zombie reports whether a /proc/PID/stat line is a process that ended and
// waits only for its parent to read its status.
func zombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	f := strings.Fields(string(stat[i+1:]))
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}
