package sqlitelab

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync/atomic"
	"syscall"

	"outboxlab/effect"
)

// killGate is the effect gate of a real process. It performs every effect;
// at the run's crash point, on the occurrence the parent named, it kills its
// own process with SIGKILL, before the effect or right after it. No
// deferred function runs, no buffer is flushed, no transaction is rolled
// back politely: what the database made durable stays, the rest is gone.
//
// Occurrences are counted across processes (a second relay crossing the
// point counts too) in the run's control file, as the simulator counts
// them across its processes.
//
// At a stall the run plans for this process (Config.Stalls) the gate stops
// its own process with SIGSTOP, the first time it gets there, before the
// effect: the kernel freezes every thread where it stands, holding what it
// holds (a claim under its lease, an open transaction), until the parent
// sends SIGCONT. The simulator stalls a process at the same points.
type killGate struct {
	control *sql.DB
	process string
	point   string   // "" for a run without a crash
	stalls  []string // the points where this process is to stall, fired or not
	// resumed is set when the process resumed from a stall; its loop says
	// idleWord when it next finds nothing to do.
	resumed *atomic.Bool
	log     func(format string, args ...any)
}

// newKillGate reads the run's crash point and the stalls planned for the
// process.
func newKillGate(control *sql.DB, process string, resumed *atomic.Bool, log func(string, ...any)) (killGate, error) {
	g := killGate{control: control, process: process, resumed: resumed, log: log}
	err := control.QueryRow(`SELECT point FROM crash`).Scan(&g.point)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return g, fmt.Errorf("sqlitelab: crash point: %w", err)
	}
	rows, err := control.Query(`SELECT point FROM stall WHERE process = ? OR (process = ? AND ? LIKE 'relay-%')`, process, AnyRelay, process)
	if err != nil {
		return g, fmt.Errorf("sqlitelab: stalls: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return g, fmt.Errorf("sqlitelab: stalls: %w", err)
		}
		g.stalls = append(g.stalls, p)
	}
	return g, rows.Err()
}

// Cross implements effect.Gate.
func (g killGate) Cross(b effect.Boundary, fn func() error) error {
	if slices.Contains(g.stalls, b.Before()) {
		g.maybeStall(b.Before())
	}
	if g.point == b.Before() {
		g.maybeDie()
	}
	if err := fn(); err != nil {
		return err
	}
	if g.point == b.After() {
		g.maybeDie()
	}
	return nil
}

// maybeDie counts one crossing of the crash point and kills the process if
// it is the occurrence the parent named.
func (g killGate) maybeDie() {
	var n, k int
	err := g.control.QueryRow(`UPDATE crash SET crossed = crossed + 1 RETURNING crossed, occurrence`).Scan(&n, &k)
	if err != nil {
		g.broken(err)
	}
	if n != k {
		return
	}
	if _, err := g.control.Exec(`UPDATE crash SET fired_pid = ?`, os.Getpid()); err != nil {
		g.broken(err)
	}
	g.log("crash %s@%d: SIGKILL", g.point, k)
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way; nothing more happens here
}

// maybeStall stops the process at point if a stall planned for it there
// has not fired yet (one stall per process at a point). The parent reads
// the line, which names the stall by its number, waits until the kernel
// shows the process stopped, and sends SIGCONT when the stall's time is up.
func (g killGate) maybeStall(point string) {
	var n int
	err := g.control.QueryRow(`UPDATE stall SET fired_pid = ?, fired_name = ?
		WHERE rowid = (SELECT MIN(rowid) FROM stall WHERE point = ? AND fired_pid = 0 AND (process = ? OR process = ?))
		  AND NOT EXISTS (SELECT 1 FROM stall WHERE point = ? AND fired_name = ?)
		RETURNING rowid`, os.Getpid(), g.process, point, g.process, AnyRelay, point, g.process).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return
	}
	if err != nil {
		g.broken(err)
	}
	g.log("%s %s #%d: SIGSTOP", stallWord, point, n)
	// To this thread: a SIGSTOP to the process may be taken by another
	// thread, and this one sends its effect before the stop reaches it
	// (it did: "resumed" and the send came before the stop). A signal to
	// the thread is taken as its kill returns, and stops the whole
	// process from there.
	runtime.LockOSThread()
	syscall.Tgkill(os.Getpid(), syscall.Gettid(), syscall.SIGSTOP)
	runtime.UnlockOSThread()
	g.log("resumed at %s", point)
	g.resumed.Store(true)
}

// stallWord starts the line a stalling process says, which the parent
// watches for.
const stallWord = "stall at"

// idleWord is what a relay or billing says when it finds nothing to do for
// the first time after it resumed from a stall: the parent counts the
// stall as over only then, for the step it was frozen in may still have
// its send to make (mark-before-send's SENT is in the outbox before the
// send; the system looked quiet, and the run ended before the late send).
const idleWord = "idle after its stall"

// broken ends a process whose control file failed: the harness is broken,
// not the system, and the parent reports it.
func (g killGate) broken(err error) {
	g.log("gate: %v", err)
	os.Exit(3)
}
