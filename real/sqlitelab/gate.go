package sqlitelab

import (
	"database/sql"
	"fmt"
	"os"
	"syscall"

	"outboxlab/effect"
)

// killGate is the effect gate of a real process. It performs every effect;
// at the run's crash point, on the occurrence the parent named, it kills its
// own process with SIGKILL, before the effect or right after it. No
// deferred function runs, no buffer is flushed, no transaction is rolled
// back politely: what SQLite made durable stays, the rest is gone.
//
// Occurrences are counted across processes (a second relay crossing the
// point counts too) in the run's control file, as the simulator counts
// them across its processes.
type killGate struct {
	control *sql.DB
	point   string // "" for a process that never crashes
	log     func(format string, args ...any)
}

// Cross implements effect.Gate.
func (g killGate) Cross(b effect.Boundary, fn func() error) error {
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
		g.log("gate: %v", err)
		os.Exit(3) // the harness is broken, not the system: the parent reports it
	}
	if n != k {
		return
	}
	if _, err := g.control.Exec(`UPDATE crash SET fired_pid = ?`, os.Getpid()); err != nil {
		g.log("gate: %v", err)
		os.Exit(3)
	}
	g.log("crash %s@%d: SIGKILL", g.point, k)
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way; nothing more happens here
}

// crashPoint reads the run's crash point, "" if it has none.
func crashPoint(control *sql.DB) (string, error) {
	var point string
	err := control.QueryRow(`SELECT point FROM crash`).Scan(&point)
	if err == sql.ErrNoRows {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("sqlitelab: crash point: %w", err)
	}
	return point, nil
}
