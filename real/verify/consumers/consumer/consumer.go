package consumer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Querier is what a step runs its SQL on: the effect's transaction, or
// the pool (a statement that commits on its own).
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Decision is what the inbox says of an event: apply it now, skip it (it
// was applied before), or park it (an earlier event of its order is
// missing).
type Decision int

// The decisions.
const (
	Apply Decision = iota
	Skip
	Park
)

// Consumer is one consumer instance. Its steps are fields: New fills them
// with the reference's, and a broken consumer replaces one.
type Consumer struct {
	Env   Env
	DB    *pgxpool.Pool
	Kafka *kgo.Client
	// Client are the Kafka client's options (see New), and Offsets those
	// that say how offsets are committed.
	Client, Offsets []kgo.Opt

	// Known says whether an event type in a version is one of the
	// contract's.
	Known func(typ, version string) bool
	// ParseAmount reads a decimal amount of a currency into minor units.
	ParseAmount func(amount, currency string) (Money, error)
	// Applied returns the sequence applied last of an order (0 for none),
	// and holds it until q's transaction ends.
	Applied func(ctx context.Context, q Querier, orderID string) (int, error)
	// Decide says what to do with the event of sequence seq when applied
	// was the last one applied.
	Decide func(seq, applied int) Decision
	// MarkApplied records that the order's events up to seq are applied.
	MarkApplied func(ctx context.Context, q Querier, orderID string, seq int) error
	// GiveUp says whether a record whose handling failed with err is a
	// dead letter (no retry will change it) or is tried again.
	GiveUp func(err error) bool
	// DeadLetter records a record given up, with why, in
	// billing_dead_letters.
	DeadLetter func(ctx context.Context, rec *kgo.Record, cause error) error
	// Commit commits the offsets of the records handled, to the group.
	Commit func(ctx context.Context, recs []*kgo.Record) error
	// FetchFailed hears of a fetch the broker refused; an error ends the
	// consumer.
	FetchFailed func(topic string, partition int32, err error) error

	lastFetchErr string // the fetch error logged last, "" after a fetch went well
}

// New returns the reference consumer for env, not yet connected.
func New(env Env) *Consumer {
	c := &Consumer{Env: env}
	c.Known, c.ParseAmount, c.Applied, c.Decide, c.MarkApplied = known, parseAmount, applied, decide, markApplied
	c.GiveUp, c.DeadLetter, c.Commit, c.FetchFailed = unreadable, c.deadLetter, c.commit, c.fetchFailed
	// The group's session and heartbeat as the contract hands them; a
	// rebalance waits until the records of a poll are handled and their
	// offsets committed, so that the partitions move on with their
	// offsets; the fetch errors the client retries by itself are reported
	// too, to be seen in the log.
	c.Client = []kgo.Opt{kgo.SeedBrokers(env.Brokers...), kgo.ClientID(env.Instance),
		kgo.ConsumerGroup(env.Group), kgo.ConsumeTopics(env.Topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.SessionTimeout(env.SessionTimeout), kgo.HeartbeatInterval(env.Heartbeat),
		kgo.BlockRebalanceOnPoll(), kgo.FetchMaxWait(200 * time.Millisecond), kgo.KeepRetryableFetchErrors()}
	// The consumer commits the offsets itself, after the effects: no
	// auto-commit.
	c.Offsets = []kgo.Opt{kgo.DisableAutoCommit()}
	return c
}

// Connect opens the database pool and the Kafka client.
func (c *Consumer) Connect(ctx context.Context) error {
	cfg, err := pgxpool.ParseConfig(c.Env.DatabaseURL)
	if err != nil {
		return fmt.Errorf("consumer: BILLING_DATABASE_URL: %w", err)
	}
	cfg.MaxConns = 3
	cfg.ConnConfig.RuntimeParams["application_name"] = c.Env.Instance
	if c.DB, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return fmt.Errorf("consumer: database: %w", err)
	}
	if c.Kafka, err = kgo.NewClient(append(c.Client, c.Offsets...)...); err != nil {
		c.DB.Close()
		return fmt.Errorf("consumer: kafka: %w", err)
	}
	return nil
}

// Run creates its tables, then polls, handles and commits until stop
// ends. It connects first if Connect was not called.
func (c *Consumer) Run(stop context.Context) error {
	ctx := context.Background() // a record's transaction runs to its end; stop is checked between records
	if c.DB == nil {
		if err := c.Connect(ctx); err != nil {
			return err
		}
	}
	defer c.DB.Close()
	defer c.Kafka.Close()
	for failures := 1; stop.Err() == nil; failures++ {
		err := createTables(ctx, c.DB)
		if err == nil {
			break
		}
		c.logf("create tables: %v (pause %s)", err, pause(failures))
		sleep(stop, pause(failures))
	}
	for stop.Err() == nil {
		poll, cancel := context.WithTimeout(stop, 500*time.Millisecond)
		fetches := c.Kafka.PollRecords(poll, 100)
		cancel()
		if err := c.fetchErrors(stop, fetches); err != nil {
			return err
		}
		var done []*kgo.Record
		for _, rec := range fetches.Records() {
			if stop.Err() != nil || !c.process(ctx, stop, rec) {
				break // stopping: what is not handled is read again by whoever comes next
			}
			done = append(done, rec)
		}
		if len(done) > 0 {
			if err := c.Commit(ctx, done); err != nil {
				c.logf("commit: %v (the partitions moved on: their next owner reads these again)", err)
			}
		}
		c.Kafka.AllowRebalance()
	}
	return nil
}

// process handles one record until it is applied, skipped, parked or
// given up as a dead letter; it reports false if stop ended first.
func (c *Consumer) process(ctx, stop context.Context, rec *kgo.Record) bool {
	for failures := 1; ; failures++ {
		err := c.handle(ctx, rec)
		if err != nil && c.GiveUp(err) {
			if err = c.DeadLetter(ctx, rec, err); err == nil {
				return true
			}
		}
		if err == nil {
			return true
		}
		c.logf("p%d/%d: %v (pause %s)", rec.Partition, rec.Offset, err, pause(failures))
		if !sleep(stop, pause(failures)) {
			return false
		}
	}
}

// fetchErrors hands the fetch errors of a poll to FetchFailed, and
// pauses a little after them: the broker that refused answers at once.
func (c *Consumer) fetchErrors(stop context.Context, fetches kgo.Fetches) error {
	failed := false
	for _, f := range fetches.Errors() {
		if errors.Is(f.Err, context.DeadlineExceeded) || errors.Is(f.Err, context.Canceled) || errors.Is(f.Err, kgo.ErrClientClosed) {
			continue
		}
		failed = true
		if err := c.FetchFailed(f.Topic, f.Partition, f.Err); err != nil {
			return fmt.Errorf("fetch %s/%d: %w", f.Topic, f.Partition, err)
		}
	}
	if !failed {
		c.lastFetchErr = ""
		return nil
	}
	sleep(stop, 100*time.Millisecond)
	return nil
}

// fetchFailed logs a refused fetch, once until a fetch goes well, and
// goes on: the broker refusing fetches is transient.
func (c *Consumer) fetchFailed(topic string, partition int32, err error) error {
	if err.Error() != c.lastFetchErr {
		c.logf("fetch %s/%d refused: %v (polling on)", topic, partition, err)
		c.lastFetchErr = err.Error()
	}
	return nil
}

func (c *Consumer) commit(ctx context.Context, recs []*kgo.Record) error {
	return c.Kafka.CommitRecords(ctx, recs...)
}

func (c *Consumer) logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

// pause is 50 ms after the first failure, doubling up to one second.
func pause(n int) time.Duration {
	d := 50 * time.Millisecond
	for i := 1; i < n && d < time.Second; i++ {
		d *= 2
	}
	return min(d, time.Second)
}

// sleep waits d; it reports false if stop ended first.
func sleep(stop context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-stop.Done():
		return false
	case <-t.C:
		return true
	}
}

// Main is a consumer program's main: it reads the environment, lets
// change replace steps (nil for the reference), runs until SIGTERM or
// SIGINT and exits 1 on an error, 2 on a missing variable.
func Main(change func(c *Consumer)) {
	stop, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer cancel()
	c := New(MustFromEnv())
	if change != nil {
		change(c)
	}
	if err := c.Run(stop); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
