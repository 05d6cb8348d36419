// Package cleanup makes a program that runs real parts leave nothing
// behind: no process (a relay, billing, a PostgreSQL server) and no
// temporary directory, however it ends.
//
// A program calls Start first thing in main or TestMain (after
// sqlitelab.Child, whose children must not start one of their own). Start
// installs a handler for SIGINT, SIGTERM and SIGHUP that stops what the
// program registered, removes its directories and exits (128 + the
// signal's number), and starts the program's janitor: the same executable
// again, in a process group of its own, ignoring those signals, reading a
// pipe from the program. When the program dies in a way no handler sees (a
// `go test -timeout` panic, SIGKILL), the pipe ends and the janitor does
// the handler's work.
//
// What the program starts and creates it registers as it goes:
//
//	cmd := exec.Command(name, args...)
//	cleanup.Prepare(cmd, syscall.SIGKILL) // own process group, killed when the program dies
//	if err := cmd.Start(); err != nil { ... }
//	release, err := cleanup.Track(cmd, syscall.SIGKILL)
//	...
//	cmd.Wait()
//	release()
//
//	dir, err := cleanup.MkdirTemp("", "outboxlab-real-")
//	defer cleanup.RemoveAll(dir)
//
// Prepare puts a child in a process group of its own, so that a Ctrl-C at
// the terminal reaches the program and not the child behind its back, and
// gives it a parent-death signal (Linux's PR_SET_PDEATHSIG): the kernel
// sends it when the program dies. Strictly, when the thread that started
// the child ends: Go ends a thread only when a goroutine locked to it
// (runtime.LockOSThread) returns without unlocking it, and the janitor
// stops what such a death would leave. Track registers the group for the
// handler and the janitor; OnInterrupt registers a polite stop (a server's
// fast shutdown) that the handler tries first. Without Start, Prepare,
// Track and MkdirTemp still work; nothing cleans up after a signal then.
//
// The registry is one per process, as a process has one set of children
// and one set of signals.
package cleanup
