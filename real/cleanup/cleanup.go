package cleanup

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// ErrStopping is wrapped by the error of Track and MkdirTemp once the
// process is cleaning up after a signal: a process started now is killed
// at once, and no directory is made.
var ErrStopping = errors.New("the process is stopping after a signal")

// registry is what this process has to clean up.
type registry struct {
	mu       sync.Mutex
	stopping bool
	// groups are the process groups to stop, each with the signal that
	// stops it politely (SIGKILL follows if it does not).
	groups map[int]syscall.Signal
	dirs   map[string]bool
	stops  map[int]func()
	next   int
	// janitor is the pipe to the janitor; nil without one.
	janitor *os.File
}

var reg = registry{groups: map[int]syscall.Signal{}, dirs: map[string]bool{}, stops: map[int]func(){}}

// tell passes a change of the registry on to the janitor, if there is one.
// A janitor that went away changes nothing here: the handler still works.
func (r *registry) tell(format string, args ...any) {
	if r.janitor != nil {
		fmt.Fprintf(r.janitor, format+"\n", args...)
	}
}

// Prepare sets what a child needs before it starts: a process group of its
// own (a Ctrl-C at the terminal then reaches this process, which stops the
// child in order, and not the child behind its back), and the signal the
// kernel sends it when this process dies (SIGKILL for a child that holds
// nothing; SIGQUIT makes PostgreSQL shut down at once and free its shared
// memory). Other fields of cmd.SysProcAttr, a Credential, are kept.
func Prepare(cmd *exec.Cmd, stop syscall.Signal) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = stop
}

// Track registers the process group of a started child (Prepare made the
// child its leader): the signal handler and the janitor stop it with stop,
// and with SIGKILL if it is still there ten seconds later. Call release
// once the child was waited for. While the process is stopping after a
// signal, Track kills the child at once and returns ErrStopping.
func Track(cmd *exec.Cmd, stop syscall.Signal) (release func(), err error) {
	pid := cmd.Process.Pid
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.stopping {
		syscall.Kill(-pid, syscall.SIGKILL)
		return func() {}, fmt.Errorf("cleanup: %s (pid %d): %w", filepath.Base(cmd.Path), pid, ErrStopping)
	}
	reg.groups[pid] = stop
	reg.tell("group %d %d", pid, stop)
	return func() {
		reg.mu.Lock()
		defer reg.mu.Unlock()
		delete(reg.groups, pid)
		reg.tell("ungroup %d", pid)
	}, nil
}

// MkdirTemp makes a temporary directory as os.MkdirTemp does and registers
// it: the handler and the janitor remove it, after stopping whatever
// process still works inside it. Remove it with RemoveAll.
func MkdirTemp(dir, pattern string) (string, error) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.stopping {
		return "", fmt.Errorf("cleanup: temporary directory %s: %w", pattern, ErrStopping)
	}
	path, err := os.MkdirTemp(dir, pattern)
	if err != nil {
		return "", fmt.Errorf("cleanup: %w", err)
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	reg.dirs[path] = true
	reg.tell("dir %s", strconv.Quote(path))
	return path, nil
}

// RemoveAll removes a directory MkdirTemp made, and forgets it.
func RemoveAll(path string) error {
	err := os.RemoveAll(path)
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.dirs[path] {
		delete(reg.dirs, path)
		reg.tell("undir %s", strconv.Quote(path))
	}
	return err
}

// OnInterrupt registers a polite stop (a server's fast shutdown) that the
// signal handler runs, all of them at once, before it stops the process
// groups that are left; cancel unregisters it.
func OnInterrupt(stop func()) (cancel func()) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	id := reg.next
	reg.next++
	reg.stops[id] = stop
	return func() {
		reg.mu.Lock()
		defer reg.mu.Unlock()
		delete(reg.stops, id)
	}
}

// Stopping reports whether the signal handler is cleaning up after a
// signal: the process is about to exit with 128 + the signal's number,
// and what fails now fails because the handler stops it (a server's
// initdb killed, a child gone), which is no error to report.
func Stopping() bool {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	return reg.stopping
}

var started sync.Once

// Start makes this process clean up after itself; call it first thing in
// main and TestMain. In the janitor that Start starts, it does the
// janitor's work and exits. Otherwise it installs the signal handler and
// starts the janitor; the error says the janitor could not start (the
// handler works without it). Calling it again does nothing.
func Start() error {
	if os.Getenv(envJanitor) != "" {
		os.Exit(janitor(os.NewFile(3, "the janitor's pipe")))
	}
	var err error
	started.Do(func() {
		signals := make(chan os.Signal, 2)
		signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		go func() {
			sig := (<-signals).(syscall.Signal)
			go func() { // a second signal: stop at once, the janitor finishes
				<-signals
				os.Exit(128 + int(sig))
			}()
			os.Exit(interrupted(sig))
		}()
		err = startJanitor()
	})
	return err
}

// MustStart calls Start, and exits with its error (status 1) if it fails.
func MustStart() {
	if err := Start(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(os.Args[0]), err)
		os.Exit(1)
	}
}

// interrupted is the signal handler's work: the polite stops, then every
// process group and directory left. It returns the exit code, 128 + the
// signal's number, as a shell reports a death by that signal.
func interrupted(sig syscall.Signal) int {
	reg.mu.Lock()
	reg.stopping = true
	var stops []func()
	for _, stop := range reg.stops {
		stops = append(stops, stop)
	}
	reg.mu.Unlock()
	fmt.Fprintf(os.Stderr, "\n%s: %s: stopping what it started\n", filepath.Base(os.Args[0]), sig)
	var wg sync.WaitGroup
	for _, stop := range stops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stop()
		}()
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second): // what did not stop is killed below
	}
	reg.mu.Lock()
	groups, dirs := copyGroups(reg.groups), keys(reg.dirs)
	reg.mu.Unlock()
	stopped, removed := sweep(groups, dirs)
	fmt.Fprintf(os.Stderr, "%s: stopped %d process group(s), removed %d temporary director%s\n",
		filepath.Base(os.Args[0]), stopped, removed, map[bool]string{true: "y", false: "ies"}[removed == 1])
	return 128 + int(sig)
}

func copyGroups(m map[int]syscall.Signal) map[int]syscall.Signal {
	out := make(map[int]syscall.Signal, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
