package sqlitelab

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"outboxlab/domain"
	"outboxlab/orders"
	"outboxlab/outbox"
)

// The environment a child process reads its part from.
const (
	envRole        = "OUTBOXLAB_REAL_ROLE" // service, relay or billing
	envName        = "OUTBOXLAB_REAL_NAME" // the process name: service, relay-1, relay-2, billing
	envDir         = "OUTBOXLAB_REAL_DIR"
	envVariant     = "OUTBOXLAB_REAL_VARIANT"
	envPostgres    = "OUTBOXLAB_REAL_POSTGRES"    // the order database's connection string, "" for SQLite
	envLease       = "OUTBOXLAB_REAL_LEASE"       // the relays' lease, as time.ParseDuration reads it
	envSeed        = "OUTBOXLAB_REAL_SEED"        // the run's seed (Config.Seed)
	envIncarnation = "OUTBOXLAB_REAL_INCARNATION" // 1 for the first process under the name, 2 for its successor, ...
)

// DefaultLease is the relays' lease unless a run says otherwise
// (Config.Lease). The simulator's is 30 s of virtual time; a real run
// lasts well under a second, and a restarted relay recovers its own claims
// at once, so at this length a lease expires only in a row that freezes a
// relay past it on purpose (stall), whose runs set a shorter one.
const DefaultLease = 5 * time.Second

// Child runs the part of a child process and exits, if the environment
// names one; otherwise it returns at once. Call it first thing in main (and
// in TestMain of a test that runs real parts): the harness starts its
// children by running the same executable again.
func Child() {
	role := os.Getenv(envRole)
	if role == "" {
		return
	}
	if err := runChild(role); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// readyWord is what a relay or billing says when it has started (and
// recovered) and begins its work: the parent hands the service its first
// command only then, as the simulator's processes all exist before it.
const readyWord = "ready"

// childEnv is what a child process is told: its part and the run's.
type childEnv struct {
	role, name, dir, postgres string
	variant                   Variant
	lease                     time.Duration
	// random draws the process's own choices (message ids, idle pauses)
	// from the run's seed, its name and its incarnation.
	random *rand.Rand
	// resumed: the process resumed from its stall (see idleWord).
	resumed *atomic.Bool
	log     func(format string, args ...any)
}

func readChildEnv(role string) (childEnv, error) {
	e := childEnv{role: role, name: os.Getenv(envName), dir: os.Getenv(envDir), postgres: os.Getenv(envPostgres)}
	var err error
	if e.variant, err = FindVariant(os.Getenv(envVariant)); err != nil {
		return e, err
	}
	if e.lease, err = time.ParseDuration(os.Getenv(envLease)); err != nil {
		return e, fmt.Errorf("%s: %w", envLease, err)
	}
	seed, err := strconv.ParseUint(os.Getenv(envSeed), 10, 64)
	if err != nil {
		return e, fmt.Errorf("%s: %w", envSeed, err)
	}
	incarnation, err := strconv.ParseUint(os.Getenv(envIncarnation), 10, 64)
	if err != nil {
		return e, fmt.Errorf("%s: %w", envIncarnation, err)
	}
	h := fnv.New64a()
	h.Write([]byte(e.name))
	e.random = rand.New(rand.NewPCG(seed, h.Sum64()+incarnation))
	e.log = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	e.resumed = new(atomic.Bool)
	return e, nil
}

// idle returns how long a relay or billing waits after its n-th step in a
// row that found nothing: one to two milliseconds at first, twice as long
// after every eight such steps, at most sixteen, and a part of it drawn, so
// that two relays do not poll in step and the run's seed varies how they
// interleave. A process that just worked looks again at once; one that has
// found nothing for a while polls less (a busy poll every two
// milliseconds, by three processes in four runs at once, cost the matrix
// on PostgreSQL more CPU than the work).
func (e childEnv) idle(n int) time.Duration {
	d := time.Millisecond << min(n/8, 4)
	return d + time.Duration(e.random.Int64N(int64(d)))
}

// newMessageID draws a message id: "e-" and twelve hex digits.
func (e childEnv) newMessageID() string { return messageID(e.random) }

// messageID draws a message id from random.
func messageID(random *rand.Rand) string {
	return fmt.Sprintf("e-%012x", random.Uint64()>>16)
}

func runChild(role string) error {
	e, err := readChildEnv(role)
	if err != nil {
		return err
	}
	e.log("started, pid %d", os.Getpid())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()

	var orderDB orderDB
	if role != "billing" { // billing has a database of its own
		if orderDB, err = openOrders(e.dir, e.postgres); err != nil {
			return err
		}
		defer orderDB.Close()
	}
	dbs := map[string]*sql.DB{}
	for _, file := range []string{BillingFile, BrokerFile, controlFile} {
		db, err := open(e.dir, file)
		if err != nil {
			return err
		}
		defer db.Close()
		dbs[file] = db
	}
	gate, err := newKillGate(dbs[controlFile], e.name, e.resumed, e.log)
	if err != nil {
		return err
	}
	brk := durableBroker{db: dbs[BrokerFile], control: dbs[controlFile]}
	if role == "relay" {
		brk.orders = orderDB.DB // a dropped publish of a relay's waits for its mark
	}
	switch role {
	case "service":
		s := &service{db: orderDB, broker: brk, gate: gate, owner: e.name, newID: e.newMessageID}
		return serve(s, e.variant)
	case "relay":
		return runRelay(ctx, e, orderDB, brk, gate)
	case "billing":
		c := &consumer{db: dbs[BillingFile], broker: brk, gate: gate, session: os.Getpid(), mistake: e.variant.consumerMistake, log: e.log}
		if err := brk.Reconnect(c.session); err != nil {
			return err
		}
		e.log(readyWord)
		if e.variant.consumerStep != nil {
			return loop(ctx, e, func() (bool, error) { return e.variant.consumerStep(c) })
		}
		return loop(ctx, e, c.step)
	}
	return fmt.Errorf("unknown role %q (valid: service, relay, billing)", role)
}

// runRelay runs the variant's relay until the parent stops it.
func runRelay(ctx context.Context, e childEnv, orderDB orderDB, brk durableBroker, gate killGate) error {
	v := e.variant
	if v.cdc {
		r, err := startCDC(orderDB.DB, e.postgres, brk, gate, e.log)
		if err != nil {
			return err
		}
		e.log(readyWord)
		if v.cdcStep != nil {
			return loop(ctx, e, func() (bool, error) { return v.cdcStep(r) })
		}
		return loop(ctx, e, r.step)
	}
	cfg := outbox.DefaultConfig(e.name)
	cfg.Lease = e.lease
	if v.noRecovery {
		// MISTAKE (no-inflight-recovery): "no lease", a claim is forever,
		// and nothing is recovered below.
		cfg.Lease = 100 * 365 * 24 * time.Hour
	}
	r := &relay{db: orderDB, broker: brk, gate: gate, cfg: cfg, variant: v, log: e.log}
	if v.position != noPosition {
		if err := r.startPosition(); err != nil {
			return err
		}
	}
	if !v.noRecovery {
		if err := r.recover(); err != nil {
			return err
		}
	}
	e.log(readyWord)
	if v.relayStep != nil {
		return loop(ctx, e, func() (bool, error) { return v.relayStep(r) })
	}
	return loop(ctx, e, r.step)
}

// serve runs the commands the parent writes to stdin, one JSON line each,
// and answers each with a line: "ok" or the error.
func serve(s *service, v Variant) error {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var w wireCommand
		if err := json.Unmarshal(in.Bytes(), &w); err != nil {
			return fmt.Errorf("service: command %q: %w", in.Text(), err)
		}
		c := w.command()
		answer := "ok"
		if err := v.handle(s, c); err != nil {
			answer = "error: " + strings.ReplaceAll(err.Error(), "\n", " ")
		}
		fmt.Fprintf(os.Stderr, "%s: %s\n", c, answer)
		if _, err := fmt.Fprintln(os.Stdout, answer); err != nil {
			return err
		}
	}
	return in.Err()
}

// wireCommand is a command on the service's stdin. Money travels as its
// minor units and currency: a cancel has no amount, which Money's own JSON
// form (a valid amount) cannot say.
type wireCommand struct {
	Kind     orders.Kind
	OrderID  string
	Minor    int64
	Currency domain.Currency
	Text     string
}

func toWire(c orders.Command) wireCommand {
	return wireCommand{Kind: c.Kind, OrderID: c.OrderID, Minor: c.Amount.Minor, Currency: c.Amount.Currency, Text: c.Text}
}

func (w wireCommand) command() orders.Command {
	return orders.Command{Kind: w.Kind, OrderID: w.OrderID, Amount: domain.Money{Minor: w.Minor, Currency: w.Currency}, Text: w.Text}
}

// loop runs step until the parent asks the process to stop (SIGTERM), and
// waits a little after a step that found nothing to do.
func loop(ctx context.Context, e childEnv, step func() (bool, error)) error {
	for idle := 0; ctx.Err() == nil; {
		did, err := step()
		if err != nil {
			return err
		}
		if did {
			idle = 0
			continue
		}
		if e.resumed.CompareAndSwap(true, false) {
			e.log(idleWord)
		}
		time.Sleep(e.idle(idle))
		idle++
	}
	return nil
}
