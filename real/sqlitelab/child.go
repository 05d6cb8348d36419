package sqlitelab

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"outboxlab/domain"
	"outboxlab/orders"
	"outboxlab/outbox"
)

// The environment a child process reads its part from.
const (
	envRole     = "OUTBOXLAB_REAL_ROLE" // service, relay or billing
	envName     = "OUTBOXLAB_REAL_NAME" // the process name: service, relay-1, relay-2, billing
	envDir      = "OUTBOXLAB_REAL_DIR"
	envVariant  = "OUTBOXLAB_REAL_VARIANT"
	envPostgres = "OUTBOXLAB_REAL_POSTGRES" // the order database's connection string, "" for SQLite
)

// Lease is the relays' lease. The simulator's is 30 s of virtual time; a
// real run lasts well under a second, and a restarted relay recovers its own
// claims at once, so a lease only expires here when something is wrong.
const Lease = 5 * time.Second

// idle is how long a relay or billing waits after a step that found nothing.
const idle = 2 * time.Millisecond

// Child runs the part of a child process and exits, if the environment
// names one; otherwise it returns at once. Call it first thing in main (and
// in TestMain of a test that runs real parts): the harness starts its
// children by running the same executable again.
func Child() {
	role := os.Getenv(envRole)
	if role == "" {
		return
	}
	if err := runChild(role, os.Getenv(envName), os.Getenv(envDir), os.Getenv(envPostgres), os.Getenv(envVariant)); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func runChild(role, name, dir, postgres, variantName string) error {
	v, err := FindVariant(variantName)
	if err != nil {
		return err
	}
	log := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	log("started, pid %d", os.Getpid())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()

	orderDB, err := openOrders(dir, postgres)
	if err != nil {
		return err
	}
	defer orderDB.Close()
	dbs := map[string]*sql.DB{}
	for _, file := range []string{BillingFile, BrokerFile, controlFile} {
		db, err := open(dir, file)
		if err != nil {
			return err
		}
		defer db.Close()
		dbs[file] = db
	}
	point, err := crashPoint(dbs[controlFile])
	if err != nil {
		return err
	}
	gate := killGate{control: dbs[controlFile], point: point, log: log}
	brk := durableBroker{dbs[BrokerFile]}

	switch role {
	case "service":
		s := &service{db: orderDB, broker: brk, gate: gate, owner: name}
		return serve(s, v)
	case "relay":
		if v.cdc {
			r, err := startCDC(postgres, brk, gate, log)
			if err != nil {
				return err
			}
			if v.cdcStep != nil {
				return loop(ctx, func() (bool, error) { return v.cdcStep(r) })
			}
			return loop(ctx, r.step)
		}
		cfg := outbox.DefaultConfig(name)
		cfg.Lease = Lease
		if v.noRecovery {
			// MISTAKE (no-inflight-recovery): "no lease", a claim is forever,
			// and nothing is recovered below.
			cfg.Lease = 100 * 365 * 24 * time.Hour
		}
		r := &relay{db: orderDB, broker: brk, gate: gate, cfg: cfg, sendThenMark: !v.markBeforeSend, claimWithoutLock: v.claimWithoutLock, log: log}
		if !v.noRecovery {
			if err := r.recover(); err != nil {
				return err
			}
		}
		return loop(ctx, r.step)
	case "billing":
		c := &consumer{db: dbs[BillingFile], broker: brk, gate: gate, session: os.Getpid(), mistake: v.consumerMistake, log: log}
		if err := brk.Reconnect(c.session); err != nil {
			return err
		}
		if v.consumerStep != nil {
			return loop(ctx, func() (bool, error) { return v.consumerStep(c) })
		}
		return loop(ctx, c.step)
	}
	return fmt.Errorf("unknown role %q (valid: service, relay, billing)", role)
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
func loop(ctx context.Context, step func() (bool, error)) error {
	for ctx.Err() == nil {
		did, err := step()
		if err != nil {
			return err
		}
		if !did {
			time.Sleep(idle)
		}
	}
	return nil
}
