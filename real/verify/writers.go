package verify

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"outboxlab/sim/check"
	"outboxlab/variant"
)

// The database tells which connection wrote a row (the history trigger
// records the writer's backend, pg_backend_pid()), not which process
// holds that connection. The harness finds out as the round goes: every
// WatchEvery it reads the server's connections (pg_stat_activity) and
// looks up the process that holds the client's end of each new one, by
// the machine's facts, as the tap does for the broker's (Fleet.Owner). A
// connection opened and closed between two looks is not seen: its writes
// have no known writer, and nothing is judged by one.

// WatchEvery is how often the harness reads the database's connections.
const WatchEvery = 50 * time.Millisecond

// writerWatch maps the database's backends to the relay processes that hold
// them, and keeps when each process was last seen holding one.
type writerWatch struct {
	pool  *pgxpool.Pool
	fleet *Fleet
	tl    *Timeline
	port  int // the server's

	mu        sync.Mutex
	byBackend map[int32]*Proc // nil: a connection of no relay process (the harness's own)
	lastSeen  map[*Proc]time.Duration
	stop      chan struct{}
	done      chan struct{}
}

func watchWriters(pool *pgxpool.Pool, fleet *Fleet, tl *Timeline, port int) *writerWatch {
	w := &writerWatch{pool: pool, fleet: fleet, tl: tl, port: port, byBackend: map[int32]*Proc{}, lastSeen: map[*Proc]time.Duration{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go w.run()
	return w
}

func (w *writerWatch) run() {
	defer close(w.done)
	tick := time.NewTicker(WatchEvery)
	defer tick.Stop()
	for {
		w.look()
		select {
		case <-w.stop:
			return
		case <-tick.C:
		}
	}
}

// look reads the server's connections to the round's database once.
func (w *writerWatch) look() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	at := w.tl.Since() // a connection listed was there when the look began
	rows, err := w.pool.Query(ctx, `SELECT pid, client_port FROM pg_stat_activity
		WHERE datname = current_database() AND client_port > 0 AND pid <> pg_backend_pid()`)
	if err != nil {
		return // the next look will do
	}
	type backend struct{ pid, port int32 }
	var seen []backend
	for rows.Next() {
		var b backend
		if rows.Scan(&b.pid, &b.port) == nil {
			seen = append(seen, b)
		}
	}
	rows.Close()
	for _, b := range seen {
		w.mu.Lock()
		p, known := w.byBackend[b.pid]
		w.mu.Unlock()
		if !known {
			p = w.fleet.Owner(int(b.port), w.port)
		}
		w.mu.Lock()
		w.byBackend[b.pid] = p
		if p != nil {
			w.lastSeen[p] = at
		}
		w.mu.Unlock()
	}
}

// close stops the watch after one last look.
func (w *writerWatch) close() {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
}

// writer returns the relay process that held backend, or nil.
func (w *writerWatch) writer(backend int32) *Proc {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.byBackend[backend]
}

// connectedAt returns when p was last seen holding a connection to the
// database, and whether it ever was.
func (w *writerWatch) connectedAt(p *Proc) (time.Duration, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	at, ok := w.lastSeen[p]
	return at, ok
}

// CutOff is a relay process that held no database connection from the
// moment the harness terminated its connections to the end of the round:
// it never reconnected (contract rule 6).
type CutOff struct {
	Proc *Proc
	// Since is when its connections were terminated.
	Since time.Duration
	// Lines are its last lines.
	Lines []string
}

// cutSettle is how long a terminated backend may still be listed.
const cutSettle = 250 * time.Millisecond

// stillCutOff returns the live processes whose connections the harness
// terminated and that the watch has not seen holding one since.
func (w *world) stillCutOff() []CutOff {
	w.drv.mu.Lock()
	ints := append([]Interruption(nil), w.drv.interruptions...)
	w.drv.mu.Unlock()
	live := w.fleet.Live()
	events := w.tl.Events()
	var out []CutOff
	for _, i := range ints {
		if !i.CutDB || !slices.Contains(live, i.Proc) || slices.ContainsFunc(out, func(c CutOff) bool { return c.Proc == i.Proc }) {
			continue
		}
		if at, ok := w.db.connectedAt(i.Proc); !ok || at < i.From+cutSettle {
			out = append(out, CutOff{Proc: i.Proc, Since: i.From, Lines: LastLines(events, i.Proc, LastLinesShown)})
		}
	}
	return out
}

// cutOff says of each process that stayed cut off in a round that did
// not go quiet that it is why: its rows waited for an instance that
// never reconnected.
func cutOff(cuts []CutOff) []check.Violation {
	var vs []check.Violation
	for _, c := range cuts {
		last := "(nothing)"
		if len(c.Lines) > 0 {
			last = strings.Join(c.Lines[max(0, len(c.Lines)-3):], " | ")
		}
		vs = append(vs, check.Violation{Outcome: variant.Stuck, Detail: english(
			"%s (pid %d) held no database connection from %.3fs, when the harness terminated its connections, to the end of the round: it never reconnected, and its rows waited (rule 6: survive a terminated connection); its last lines: %s",
			c.Proc.Label(), c.Proc.OwnPID(), c.Since.Seconds(), last)})
	}
	return vs
}
