package verify

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Interruption is something the harness did to a relay process that lets
// it, or another instance after it, send a row again: a kill, a stop, a
// database connection cut, a produce that timed out.
type Interruption struct {
	Proc     *Proc
	From, To time.Duration
	Why      string
	// CutDB: the harness terminated the process's database connections.
	CutDB bool
}

// Window is a stretch of a round, e.g. an outage.
type Window struct{ From, To time.Duration }

// driver makes a round's faults: the tap calls its hook at every moment
// of every produce, and it acts when a fault is aimed there.
type driver struct {
	tl      *Timeline
	fleet   *Fleet
	cluster *kfake.Cluster
	pool    *pgxpool.Pool
	lease   time.Duration
	faults  []Fault
	active  atomic.Int32 // faults still in progress: stalls, outages

	mu            sync.Mutex
	fired         []bool
	interruptions []Interruption
	outages       []Window
	hold          *hold // a stall's resume holds another instance's request
}

func (d *driver) hook(p *Produce, m Moment) Verdict {
	if m == Arrived {
		d.holdIfArmed(p)
	}
	for i, f := range d.faults {
		def := defOf(f.Kind)
		if p.N < f.At || def.moment != m {
			continue
		}
		d.mu.Lock()
		fired := d.fired[i]
		d.fired[i] = true
		d.mu.Unlock()
		if fired {
			continue
		}
		if p.Sender == nil {
			d.tl.Add("harness", 0, "%s not made: no relay process holds the connection of produce #%d", f, p.N)
			continue
		}
		d.active.Add(1)
		v := def.act(d, p)
		d.active.Add(-1)
		return v
	}
	return Pass
}

// notReached returns the faults whose produce never came.
func (d *driver) notReached() []Fault {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []Fault
	for i, f := range d.faults {
		if !d.fired[i] {
			out = append(out, f)
		}
	}
	return out
}

// busy reports whether a fault is still in progress.
func (d *driver) busy() bool { return d.active.Load() > 0 }

func (d *driver) kill(p *Proc, format string, args ...any) {
	d.tl.Add("harness", 0, "SIGKILL %s "+format, append([]any{p.Label()}, args...)...)
	// The kill happened when the signal went, not when the harness saw the
	// process reaped: an instance whose claim ends with its connection (row
	// locks held across the send) takes the row over in between, and with
	// the later time its copy was judged as two live senders (seen once in
	// CI with the Python relay at kill-after-answer: reaped 6 ms later).
	at := d.tl.Since()
	d.fleet.Kill(p)
	d.interruptedAt(p, at, "killed")
}

// stop stops p for dur and lets it go on.
func (d *driver) stop(p *Proc, dur time.Duration, format string, args ...any) {
	d.fleet.Stop(p)
	at := d.tl.Since()
	d.tl.Add("harness", 0, "SIGSTOP %s for %s (its lease: %s), "+format, append([]any{p.Label(), dur, d.lease}, args...)...)
	time.Sleep(dur)
	d.fleet.Cont(p)
	d.stopped(p, at, d.tl.Since())
}

func (d *driver) stopped(p *Proc, from, to time.Duration) {
	d.tl.Add("harness", 0, "SIGCONT %s after %s", p.Label(), (to - from).Round(time.Millisecond))
	d.fleet.Faulted(p)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.interruptions = append(d.interruptions, Interruption{Proc: p, From: from, To: to, Why: fmt.Sprintf("stopped for %s", (to - from).Round(time.Millisecond))})
}

func (d *driver) interrupted(p *Proc, why string) { d.interruptedAt(p, d.tl.Since(), why) }

// interruptedAt records that p's claims may have ended at at.
func (d *driver) interruptedAt(p *Proc, at time.Duration, why string) {
	d.fleet.Faulted(p)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.interruptions = append(d.interruptions, Interruption{Proc: p, From: at, To: at, Why: why})
}

// other returns a live process of another instance than p's, or nil.
func (d *driver) other(p *Proc) *Proc {
	for _, q := range d.fleet.Live() {
		if q.Instance != p.Instance {
			return q
		}
	}
	return nil
}

// outage has the broker refuse every produce for dur (NOT_ENOUGH_REPLICAS:
// retriable, as a broker whose replicas are down answers).
func (d *driver) outage(dur time.Duration) {
	d.active.Add(1)
	h := d.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Err: kerr.NotEnoughReplicas, Count: -1})
	from := d.tl.Since()
	d.fleet.FaultedAll()
	d.tl.Add("harness", 0, "broker outage for %s: every produce refused", dur)
	time.AfterFunc(dur, func() {
		h.Remove()
		d.mu.Lock()
		d.outages = append(d.outages, Window{From: from, To: d.tl.Since()})
		d.mu.Unlock()
		d.tl.Add("harness", 0, "broker outage over")
		d.active.Add(-1)
	})
}

// cutDatabase terminates the backends of p's database connections.
func (d *driver) cutDatabase(p *Proc, n int) {
	if cut, err := d.terminate(p); err != nil {
		d.tl.Add("harness", 0, "pg_terminate_backend for %s failed: %v", p.Label(), err)
	} else {
		d.tl.Add("harness", 0, "pg_terminate_backend on %d database connection(s) of %s, produce #%d stored", cut, p.Label(), n)
	}
}

// cutEveryDatabase terminates the backends of every live relay process.
func (d *driver) cutEveryDatabase(n int) {
	for _, p := range d.fleet.Live() {
		if cut, err := d.terminate(p); err != nil {
			d.tl.Add("harness", 0, "pg_terminate_backend for %s failed: %v", p.Label(), err)
		} else {
			d.tl.Add("harness", 0, "pg_terminate_backend on %d database connection(s) of %s, with produce #%d stored", cut, p.Label(), n)
		}
	}
}

// terminate ends p's database connections and records the cut.
func (d *driver) terminate(p *Proc) (int, error) {
	ports := d.fleet.Ports(p)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var cut int
	at := d.tl.Since()
	err := d.pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE client_port = ANY($1) AND pid <> pg_backend_pid()`, ports).Scan(&cut)
	if err != nil {
		return 0, err
	}
	d.fleet.Faulted(p)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.interruptions = append(d.interruptions, Interruption{Proc: p, From: at, To: at, Why: "its database connection was killed", CutDB: true})
	return cut, nil
}
