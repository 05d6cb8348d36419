package cleanup

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// envJanitor marks the janitor process: the program's own executable,
// started again by Start.
const envJanitor = "OUTBOXLAB_JANITOR"

// startJanitor starts this process's janitor and keeps the write end of
// its pipe: when this process ends, however, the kernel closes it.
func startJanitor() error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cleanup: janitor: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("cleanup: janitor: %w", err)
	}
	defer r.Close()
	cmd := exec.Command(exe, "-test.run=^$") // a test binary runs no test; a command ignores it (Start exits first)
	cmd.Env = append(os.Environ(), envJanitor+"=1")
	cmd.ExtraFiles = []*os.File{r}
	// Its own process group, and no parent-death signal: it must outlive
	// this process. No stdout or stderr: a janitor that held a pipe of
	// go test's open would keep go test waiting.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return fmt.Errorf("cleanup: janitor: %w", err)
	}
	go cmd.Wait() // it ends after this process, or when its pipe breaks
	reg.mu.Lock()
	reg.janitor = w
	reg.mu.Unlock()
	return nil
}

// janitor reads what the program registers until the program is gone, then
// stops every process group left and removes every directory left. It
// ignores the signals a terminal or a test runner sends to a whole group.
func janitor(pipe *os.File) int {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	groups, dirs := map[int]syscall.Signal{}, map[string]bool{}
	lines := bufio.NewScanner(pipe)
	for lines.Scan() {
		verb, arg, _ := strings.Cut(lines.Text(), " ")
		switch verb {
		case "group":
			var pid, sig int
			if _, err := fmt.Sscanf(arg, "%d %d", &pid, &sig); err == nil {
				groups[pid] = syscall.Signal(sig)
			}
		case "ungroup":
			if pid, err := strconv.Atoi(arg); err == nil {
				delete(groups, pid)
			}
		case "dir":
			if path, err := strconv.Unquote(arg); err == nil {
				dirs[path] = true
			}
		case "undir":
			if path, err := strconv.Unquote(arg); err == nil {
				delete(dirs, path)
			}
		}
	}
	sweep(groups, keys(dirs))
	return 0
}

// sweep stops the process groups (each with its signal, then SIGKILL after
// ten seconds), then, for each directory, kills whatever process still
// works inside it (a PostgreSQL backend runs in its data directory and
// leads a process group of its own) and removes it. It returns how many
// groups it signalled and how many directories it removed.
func sweep(groups map[int]syscall.Signal, dirs []string) (stopped, removed int) {
	for pid, sig := range groups {
		if syscall.Kill(-pid, sig) == nil {
			stopped++
		}
	}
	if !waitFor(func() bool { return liveGroups(groups) == 0 }, 10*time.Second) {
		for pid := range groups {
			syscall.Kill(-pid, syscall.SIGKILL)
		}
		waitFor(func() bool { return liveGroups(groups) == 0 }, 5*time.Second)
	}
	for _, dir := range dirs {
		waitFor(func() bool { return killInside(dir) == 0 }, 5*time.Second)
		if os.RemoveAll(dir) == nil {
			removed++
		}
	}
	return stopped, removed
}

// waitFor polls done until it holds or the time is up.
func waitFor(done func() bool, limit time.Duration) bool {
	for deadline := time.Now().Add(limit); ; time.Sleep(20 * time.Millisecond) {
		if done() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// process is one entry of /proc: a live process (zombies, which only wait
// for their parent to read their end, are left out).
type process struct {
	pid, pgid int
}

// processes lists the live processes.
func processes() []process {
	entries, _ := os.ReadDir("/proc")
	var out []process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // ended meanwhile
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and
		// parentheses, so the fields are read after its last ")".
		i := strings.LastIndexByte(string(stat), ')')
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) < 3 || fields[0] == "Z" || fields[0] == "X" {
			continue
		}
		pgid, _ := strconv.Atoi(fields[2])
		out = append(out, process{pid: pid, pgid: pgid})
	}
	return out
}

// liveGroups counts the live processes in the groups.
func liveGroups(groups map[int]syscall.Signal) int {
	n := 0
	for _, p := range processes() {
		if _, ok := groups[p.pgid]; ok {
			n++
		}
	}
	return n
}

// killInside sends SIGKILL to every live process whose working directory
// is dir or below it (removed or not), and returns how many there were.
func killInside(dir string) int {
	n := 0
	for _, p := range processes() {
		if p.pid == os.Getpid() {
			continue
		}
		if Inside(p.pid, dir) {
			syscall.Kill(p.pid, syscall.SIGKILL)
			n++
		}
	}
	return n
}

// Inside reports whether process pid works in dir or below it, even if
// the directory was removed meanwhile.
func Inside(pid int, dir string) bool {
	cwd, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "cwd"))
	if err != nil {
		return false
	}
	cwd = strings.TrimSuffix(cwd, " (deleted)")
	return cwd == dir || strings.HasPrefix(cwd, dir+"/")
}
