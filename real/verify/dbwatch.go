package verify

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Gated is a consumer's transaction the gate holds: it has written the
// N-th ledger row and waits on the harness's lock before it may go on to
// its commit.
type Gated struct {
	N       int
	Backend int   // the PostgreSQL backend's process id
	Proc    *Proc // the consumer process on the other end, nil if none is found
	// Row is what the row is: "e-5 o-2#1 invoice".
	Row string
}

// dbWatch watches the billing database: it announces each effect as its
// transaction commits (LISTEN lab_effects), and holds the ledger rows the
// round aims at (lab_gate) until the driver has acted.
type dbWatch struct {
	pool  *pgxpool.Pool
	fleet *Fleet
	tl    *Timeline
	gate  *pgx.Conn // holds the gate's locks: session locks live on one connection
	held  map[int]bool

	mu      sync.Mutex
	backend map[int]string // backend pid → who it serves, as the timeline names it
}

// openWatch connects the gate's connection and takes its locks: one for
// each ledger row number in at.
func openWatch(ctx context.Context, dsn string, pool *pgxpool.Pool, tl *Timeline, at []int) (*dbWatch, error) {
	w := &dbWatch{pool: pool, tl: tl, held: map[int]bool{}, backend: map[int]string{}}
	var err error
	if w.gate, err = pgx.Connect(ctx, dsn); err != nil {
		return nil, fmt.Errorf("verify: gate: %w", err)
	}
	for _, n := range at {
		if _, err := w.gate.Exec(ctx, `INSERT INTO lab_gate (at) VALUES ($1) ON CONFLICT DO NOTHING`, n); err != nil {
			w.gate.Close(ctx)
			return nil, fmt.Errorf("verify: gate: %w", err)
		}
		if _, err := w.gate.Exec(ctx, `SELECT pg_advisory_lock($1, $2)`, gateLockClass, n); err != nil {
			w.gate.Close(ctx)
			return nil, fmt.Errorf("verify: gate: %w", err)
		}
		w.held[n] = true
	}
	return w, nil
}

// gateLoop finds the transactions waiting at the gate, hands each to act
// and then lets it go on, until ctx ends; then it lets every one go.
// pg_locks is the server's: only this round's database's locks are its
// own (rounds played at once each have a database on one server; a
// round that took another's waiting transaction for its own found no
// consumer holding it and let its own go unmade).
func (w *dbWatch) gateLoop(ctx context.Context, act func(g Gated)) {
	defer w.gate.Close(context.Background())
	for len(w.held) > 0 && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
		rows, err := w.pool.Query(ctx, `SELECT l.objid::int, l.pid, a.application_name FROM pg_locks l
			JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE l.locktype = 'advisory' AND l.classid = $1 AND NOT l.granted
			  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
			ORDER BY l.objid`, gateLockClass)
		if err != nil {
			continue
		}
		waiting, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Gated, error) {
			var g Gated
			return g, row.Scan(&g.N, &g.Backend, &g.Row)
		})
		if err != nil {
			continue
		}
		for _, g := range waiting {
			if !w.held[g.N] {
				continue
			}
			g.Proc = w.procOf(ctx, g.Backend)
			act(g)
			w.release(g.N)
		}
	}
	for n := range w.held {
		w.release(n)
	}
}

func (w *dbWatch) release(n int) {
	if _, err := w.gate.Exec(context.Background(), `SELECT pg_advisory_unlock($1, $2)`, gateLockClass, n); err != nil {
		w.tl.Add("harness", 0, "cannot let effect #%d go on: %v", n, err)
	}
	delete(w.held, n)
}

// procOf returns the consumer process a backend serves, by the port of
// its client.
func (w *dbWatch) procOf(ctx context.Context, backend int) *Proc {
	var port int
	if err := w.pool.QueryRow(ctx, `SELECT coalesce(client_port, 0) FROM pg_stat_activity WHERE pid = $1`, backend).Scan(&port); err != nil || port == 0 {
		return nil
	}
	return w.fleet.ByPort(port)
}

// backends returns the backends of p's connections.
func (w *dbWatch) backends(ctx context.Context, p *Proc) []int {
	rows, err := w.pool.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1)`, w.fleet.Ports(p))
	if err != nil {
		return nil
	}
	pids, _ := pgx.CollectRows(rows, pgx.RowTo[int])
	return pids
}

// listen announces every effect as its transaction commits, until ctx
// ends: "billing-2/1 committed e-5 (o-2#1 invoice 2500 USD)".
func (w *dbWatch) listen(ctx context.Context, dsn string) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		w.tl.Add("harness", 0, "cannot listen to the billing database: %v", err)
		return
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `LISTEN lab_effects`); err != nil {
		w.tl.Add("harness", 0, "cannot listen to the billing database: %v", err)
		return
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if !errors.Is(ctx.Err(), context.Canceled) {
				w.tl.Add("harness", 0, "stopped listening to the billing database: %v", err)
			}
			return
		}
		// id backend event order#seq kind amount currency
		f := strings.Fields(n.Payload)
		if len(f) < 7 {
			continue
		}
		backend, _ := strconv.Atoi(f[1])
		w.tl.Add("database", 0, "%s committed %s (%s %s %s %s), ledger row %s", w.who(ctx, backend), f[2], f[3], f[4], f[5], f[6], f[0])
	}
}

// who names the consumer process a backend serves, once for each backend.
func (w *dbWatch) who(ctx context.Context, backend int) string {
	w.mu.Lock()
	name, ok := w.backend[backend]
	w.mu.Unlock()
	if ok {
		return name
	}
	name = fmt.Sprintf("backend %d", backend)
	if p := w.procOf(ctx, backend); p != nil {
		name = p.Label()
	}
	w.mu.Lock()
	w.backend[backend] = name
	w.mu.Unlock()
	return name
}
