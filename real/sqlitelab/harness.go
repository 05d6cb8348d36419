package sqlitelab

import (
	"fmt"
	"time"

	"outboxlab/broker"
	"outboxlab/orders"
	"outboxlab/real/cleanup"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/sim/check"
	"outboxlab/variant"
)

// Config is one run on real parts.
type Config struct {
	Variant string
	// Relays is how many relay processes run: 1 to 3.
	Relays int
	// Services is how many instances of the order service take the
	// workload's commands: 1 ("service"), or 2 ("service-1" and
	// "service-2", on PostgreSQL only: SQLite's one writer would make one
	// wait for the other's whole transaction). 0 means 1.
	Services int
	// Route names the instance each workload command goes to, by index;
	// nil sends them to "service", or to service-1 and service-2 in turn.
	Route []string
	// Crash is the crash point ("relay.after-send"), "" for a run without
	// one; Occurrence is which crossing of it kills the process (1 = the
	// first), counted over every process.
	Crash      string
	Occurrence int
	// Stalls freeze processes at named points (see Stall).
	Stalls []Stall
	// Drop, if set, has the broker drop the first publish of that message
	// (the simulator's publish-timeout-dropped): the publisher waits for an
	// answer that never comes and gets broker.ErrTimeout, once its outbox
	// row is SENT (a relay that marked it without waiting for the answer)
	// or after DropWait.
	Drop *broker.Target
	// Workload defaults to the matrix's (scenarios.Workload).
	Workload []orders.Command
	// Program and Args start a child: the running executable, which calls
	// Child first (a test binary passes -test.run=^$ too).
	Program string
	Args    []string
	// Dir is where the run's SQLite files go; "" for a temporary directory,
	// removed afterwards.
	Dir string
	// Postgres is the connection string of a PostgreSQL database for the
	// order database (orders, outbox, commit log), "" to keep it in a
	// SQLite file. Whatever tables of the harness's it holds are dropped
	// first; a database serves one run at a time.
	Postgres string
	// Quiesce is how long the system may take to go quiet after the
	// workload; 0 means 20 s.
	Quiesce time.Duration
	// Burst hands the service each command as soon as it answered the one
	// before. Without it the parent paces the workload as the simulator's
	// does (a command a second, a relay that claims within milliseconds):
	// the next command waits until a relay claimed the last one's message,
	// so that a claim holds one message, as in the simulator's runs.
	Burst bool
	// Lease is the relays' lease; 0 means DefaultLease.
	Lease time.Duration
	// Seed fixes the run's own choices: the message ids and the relays'
	// and billing's idle pauses, which vary how the processes interleave.
	// The interleaving itself is the operating system's: a run again with
	// the same seed may differ where a race decides. 0 means 1.
	Seed uint64
}

// Stall freezes a process the first time it reaches a point: the process
// stops itself with SIGSTOP there (the simulator stalls at the same
// points), and the parent sends SIGCONT For after the kernel shows it
// stopped. The process holds what it holds meanwhile: a relay its claims
// under their lease, a service its open transaction.
type Stall struct {
	// Process is the process's name: "relay-1", "service-1"; or AnyRelay,
	// whichever relay gets to the point first (each relay takes one stall
	// at a point).
	Process string
	// Point is a crash point before an effect: "relay.before-send",
	// "service.before-commit".
	Point string
	For   time.Duration
	// Outage takes the broker down just before the process resumes, until
	// a send of the process's failed (at most two seconds): its late send
	// fails, as in the simulator's stall-outage row.
	Outage bool
	// Kill ends the stall with SIGKILL instead of SIGCONT: a frozen host
	// that is killed, whose process is then restarted, as after a crash
	// (the simulator's relay-restart row).
	Kill bool
	// After, if not 0, is the number of another stall of the run (1 for
	// Config.Stalls[0]) that must have fired, its process frozen, before
	// this stall's time starts to run, when the run has the relays to
	// take both. The order of what the row stages is then the one the
	// processes report, not the operating system's: relay-restart's kill
	// waits until the other relay froze holding its claim (before, on a
	// loaded machine, the kill and the restart's recovery came before the
	// other relay had claimed anything, and recover-all's run was OK).
	After int
	// UntilRestarted, if not 0, is the number of a stall with Kill: this
	// stall lasts at least For and until that stall's process has been
	// restarted and said it is ready (its recovery done), so that the
	// recovery meets this process's claim while it is frozen.
	UntilRestarted int
	// UntilTakenOver: this stall lasts at least For and until every
	// message its relay held when it froze is SENT (taken over and sent by
	// another relay), or still its own under a lease that has not run out
	// (nobody may take it over), in a run with another relay. The frozen
	// relay then resumes after the
	// takeover, as in the simulator's stall row; on a loaded machine the
	// other relay once had not taken the message over within For, and the
	// reference's stall cell missed the lease taken over it exists for.
	UntilTakenOver bool
	// UntilPublished: this stall lasts at least For and until the broker
	// stored a message another process published after this one froze (a
	// commit it let pass was published before it commits: slow-commit),
	// or for two seconds more (a relay that waits for the frozen
	// transaction publishes nothing past it).
	UntilPublished bool
}

// AnyRelay names the relay that gets to a stall's point first. The
// simulator freezes relay-1, which its schedule sends there; on real
// processes, which relay claims a message is the operating system's
// schedule, and a stall of relay-1 that relay-2 never lets send would
// test nothing.
const AnyRelay = "relay-*"

// Result is what one run on real parts came to.
type Result struct {
	Outcome    variant.Outcome
	Violations []check.Violation
	// Fired reports whether the crash point was reached Occurrence times,
	// so that a process was killed.
	Fired bool
	// Stalls is how many of the planned stalls happened.
	Stalls int
	// Situations are what the run went through that a row exists to
	// produce, read from the order database's commit log: a lease taken
	// over, a late commit, a retried send.
	Situations []sim.Situation
	// Deaths are the processes killed by a signal, with their successors.
	Deaths []Death
	// Timeline is what every process said, in the order the parent heard
	// it, each line with the time since the start and the process; the
	// parent's own acts (SIGCONT, the broker down) are lines of "parent".
	Timeline []string
	// Commits counts the transactions committed in the order database.
	Commits int
	Wall    time.Duration
}

// Run runs the workload on real processes over SQLite (or PostgreSQL),
// kills the process that crosses the crash point its Occurrence-th time,
// restarts it, freezes and resumes the processes the stalls name, lets the
// system quiesce, and judges what the databases and the broker hold with
// the core's checker.
func Run(cfg Config) (Result, error) {
	v, err := checkConfig(&cfg)
	if err != nil {
		return Result{}, err
	}
	if cfg.Dir == "" {
		dir, err := cleanup.MkdirTemp("", "outboxlab-real-")
		if err != nil {
			return Result{}, fmt.Errorf("sqlitelab: %w", err)
		}
		defer cleanup.RemoveAll(dir)
		cfg.Dir = dir
	}
	if err := create(cfg.Dir, cfg.Postgres, v.cdc); err != nil {
		return Result{}, err
	}
	if err := plan(cfg); err != nil {
		return Result{}, err
	}
	r := newRun(cfg, v)
	res, err := r.run()
	res.Wall = time.Since(r.start)
	res.Timeline = r.timeline
	res.Deaths = r.deaths
	res.Stalls = r.stallsFired
	return res, err
}

// checkConfig checks cfg and fills in its defaults; it returns the variant.
func checkConfig(cfg *Config) (Variant, error) {
	v, err := FindVariant(cfg.Variant)
	if err != nil {
		return v, err
	}
	if v.postgres && cfg.Postgres == "" {
		return v, fmt.Errorf("sqlitelab: variant %q: %w on SQLite: it runs on PostgreSQL only (set Config.Postgres)", v.Name, ErrNotInMatrix)
	}
	if most := v.mostRelays(); cfg.Relays < 1 || cfg.Relays > most {
		return v, fmt.Errorf("sqlitelab: Relays = %d, want 1 to %d for %s", cfg.Relays, v.mostRelays(), v.Name)
	}
	if cfg.Services == 0 {
		cfg.Services = 1
	}
	if cfg.Services < 1 || cfg.Services > 2 || (cfg.Services == 2 && cfg.Postgres == "") {
		return v, fmt.Errorf("sqlitelab: Services = %d, want 1, or 2 on PostgreSQL", cfg.Services)
	}
	if cfg.Crash != "" && cfg.Occurrence < 1 {
		return v, fmt.Errorf("sqlitelab: Occurrence = %d, want >= 1 with a crash point", cfg.Occurrence)
	}
	for _, s := range cfg.Stalls {
		if s.Process == "" || s.Point == "" || s.For <= 0 {
			return v, fmt.Errorf("sqlitelab: stall %+v: want a process, a point and a time > 0", s)
		}
		if s.After < 0 || s.After > len(cfg.Stalls) || s.UntilRestarted < 0 || s.UntilRestarted > len(cfg.Stalls) ||
			(s.UntilRestarted > 0 && !cfg.Stalls[s.UntilRestarted-1].Kill) {
			return v, fmt.Errorf("sqlitelab: stall %+v: After and UntilRestarted name another stall of the run (1 to %d), UntilRestarted one with Kill", s, len(cfg.Stalls))
		}
	}
	if cfg.Workload == nil {
		for _, c := range scenarios.Workload() {
			cfg.Workload = append(cfg.Workload, c.Command)
		}
	}
	if cfg.Route != nil && len(cfg.Route) != len(cfg.Workload) {
		return v, fmt.Errorf("sqlitelab: a route of %d instances for %d commands", len(cfg.Route), len(cfg.Workload))
	}
	if cfg.Quiesce == 0 {
		cfg.Quiesce = 20 * time.Second
	}
	if cfg.Lease == 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	return v, nil
}

// plan writes the run's crash point and stalls into its control file.
func plan(cfg Config) error {
	control, err := open(cfg.Dir, controlFile)
	if err != nil {
		return err
	}
	defer control.Close()
	if cfg.Crash != "" {
		if _, err := control.Exec(`INSERT INTO crash (point, occurrence, crossed, fired_pid) VALUES (?, ?, 0, 0)`, cfg.Crash, cfg.Occurrence); err != nil {
			return fmt.Errorf("sqlitelab: plan: %w", err)
		}
	}
	for _, s := range cfg.Stalls {
		if _, err := control.Exec(`INSERT INTO stall (process, point) VALUES (?, ?)`, s.Process, s.Point); err != nil {
			return fmt.Errorf("sqlitelab: plan: %w", err)
		}
	}
	if cfg.Drop != nil {
		if _, err := control.Exec(`INSERT INTO drop_publish (aggregate, sequence) VALUES (?, ?)`, cfg.Drop.AggregateID, cfg.Drop.Sequence); err != nil {
			return fmt.Errorf("sqlitelab: plan: %w", err)
		}
	}
	return nil
}
