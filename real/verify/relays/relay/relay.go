package relay

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Row is one outbox row a relay holds: what it publishes.
type Row struct {
	ID          int64
	EventID     string
	AggregateID string
	Payload     []byte
}

// Relay is one relay instance. Its steps are fields: New fills them with
// the reference's, and a broken relay replaces one.
type Relay struct {
	Env   Env
	DB    *pgxpool.Pool
	Kafka *kgo.Client
	// Batch is how many rows one claim takes at most.
	Batch int
	// Poll is how long the relay sleeps when nothing was due.
	Poll time.Duration
	// MaxAttempts is how many failed sends make a row a DEAD_LETTER.
	MaxAttempts int
	// Producer are the Kafka client's options (see New).
	Producer []kgo.Opt
	// Pool, if set, changes the database pool's configuration before
	// Connect opens it.
	Pool func(*pgxpool.Config)

	// Recover runs once at start: it releases the claims of this
	// instance's former life and every claim whose lease ran out.
	Recover func(ctx context.Context) error
	// Claim takes the rows due now, under a lease of Env.Lease.
	Claim func(ctx context.Context) ([]Row, error)
	// Deliver sends the claimed rows and records each outcome.
	Deliver func(ctx context.Context, rows []Row) error
	// Send publishes one row and waits for the broker's acknowledgement.
	Send func(ctx context.Context, row Row) error
	// Mark records a row SENT if the relay still holds it; false when its
	// lease was lost (another instance may be sending it now).
	Mark func(ctx context.Context, row Row) (bool, error)
	// Fail records a failed send: FAILED with a backoff, or DEAD_LETTER
	// after MaxAttempts, if the relay still holds the row.
	Fail func(ctx context.Context, row Row, cause error) error
	// HandBack returns claimed rows it did not try to PENDING.
	HandBack func(ctx context.Context, rows []Row) error
	// Pause is how long the relay waits after its n-th failed step in a
	// row: as a whole, so that a broker that is down gets one request per
	// pause, not one per waiting row.
	Pause func(n int) time.Duration
}

// New returns the reference relay for env, not yet connected.
func New(env Env) *Relay {
	r := &Relay{Env: env, Batch: 10, Poll: 50 * time.Millisecond, MaxAttempts: 30}
	r.Recover, r.Claim, r.Deliver, r.Send = r.recoverClaims, r.claimDue, r.deliver, r.send
	r.Mark, r.Fail, r.HandBack, r.Pause = r.markSent, r.recordFailure, r.handBack, pause
	// The key's murmur2 hash picks the partition (Kafka's default, as the
	// Java client's); the producer is idempotent (franz-go's default); a
	// record the broker does not acknowledge within two seconds fails, so
	// that the relay, not the client, decides what happens next. A request
	// whose answer never came may have been stored, and an idempotent
	// producer does not fail its records before it tried again, which it
	// does after its next look at the cluster's metadata: at most a
	// quarter of a second later, not franz-go's five (a send that waited
	// five seconds for it outlived SIGTERM by more than rule 8's three).
	r.Producer = []kgo.Opt{kgo.SeedBrokers(env.Brokers...), kgo.ClientID(env.Instance), kgo.DefaultProduceTopic(env.Topic),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)), kgo.RecordDeliveryTimeout(2 * time.Second),
		kgo.ProduceRequestTimeout(time.Second), kgo.RequestTimeoutOverhead(time.Second), kgo.MetadataMinAge(250 * time.Millisecond)}
	return r
}

// Connect opens the database pool and the Kafka client.
func (r *Relay) Connect(ctx context.Context) error {
	cfg, err := pgxpool.ParseConfig(r.Env.DatabaseURL)
	if err != nil {
		return fmt.Errorf("relay: OUTBOX_DATABASE_URL: %w", err)
	}
	cfg.MaxConns = 2
	cfg.ConnConfig.RuntimeParams["application_name"] = r.Env.Instance
	if r.Pool != nil {
		r.Pool(cfg)
	}
	if r.DB, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return fmt.Errorf("relay: database: %w", err)
	}
	if r.Kafka, err = kgo.NewClient(r.Producer...); err != nil {
		r.DB.Close()
		return fmt.Errorf("relay: kafka: %w", err)
	}
	return nil
}

// Run recovers, then claims and delivers until stop ends; it finishes the
// step in progress first. It connects first if Connect was not called.
func (r *Relay) Run(stop context.Context) error {
	ctx := context.Background() // a step runs to its end; stop is checked between steps
	if r.DB == nil {
		if err := r.Connect(ctx); err != nil {
			return err
		}
	}
	defer r.DB.Close()
	defer r.Kafka.Close()
	for failures := 0; stop.Err() == nil; {
		if err := r.Recover(ctx); err != nil {
			failures++
			r.logf("recover: %v (pause %s)", err, r.Pause(failures))
			sleep(stop, r.Pause(failures))
			continue
		}
		break
	}
	failures := 0
	for stop.Err() == nil {
		rows, err := r.Claim(ctx)
		if err == nil && len(rows) > 0 {
			err = r.Deliver(ctx, rows)
		}
		switch {
		case err != nil:
			failures++
			r.logf("%v (pause %s)", err, r.Pause(failures))
			sleep(stop, r.Pause(failures))
		case len(rows) == 0:
			failures = 0
			sleep(stop, r.Poll)
		default:
			failures = 0
		}
	}
	return nil
}

func (r *Relay) logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

// pause is 100 ms after the first failure, doubling up to two seconds.
func pause(n int) time.Duration {
	d := 100 * time.Millisecond
	for i := 1; i < n && d < 2*time.Second; i++ {
		d *= 2
	}
	return min(d, 2*time.Second)
}

func sleep(stop context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-stop.Done():
	case <-t.C:
	}
}

// Main is a relay program's main: it reads the environment, lets change
// replace steps (nil for the reference), runs until SIGTERM or SIGINT and
// exits 1 on an error, 2 on a missing variable.
func Main(change func(r *Relay)) {
	stop, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer cancel()
	r := New(MustFromEnv())
	if change != nil {
		change(r)
	}
	if err := r.Run(stop); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
