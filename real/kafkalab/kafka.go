// Package kafkalab is chapter 003's broker: relays claim from the
// PostgreSQL outbox (pglab) and publish to Kafka with franz-go (kgo), key =
// the aggregate id, so that one order's events land in one partition, in
// order; billing reads in a consumer group and commits its offsets itself,
// after it applied what it read.
//
// The cluster is kfake, franz-go's in-process implementation of the Kafka
// protocol: a stand-in at the protocol level, so that the tests start in
// milliseconds without a JVM. The client code is the same that talks to a
// real Kafka; only the seed brokers' addresses differ.
package kafkalab

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"outboxlab/broker"
	"outboxlab/real/pglab"
)

// Topic is where the relays publish the order events.
const Topic = "orders"

// NewCluster starts an in-process cluster with the topic and its
// partitions.
func NewCluster(partitions int32) (*kfake.Cluster, error) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, Topic))
	if err != nil {
		return nil, fmt.Errorf("kafkalab: cluster: %w", err)
	}
	return c, nil
}

// Relay claims due messages from the outbox and publishes each to Kafka,
// then records SENT under its lease. Its producer is idempotent (franz-go's
// default): the cluster drops a retried batch it already has, within the
// producer's session. A relay that restarts is a new session, and sends
// again what it had not marked.
type Relay struct {
	Owner  string
	Pool   *pgxpool.Pool
	Client *kgo.Client
	Lease  time.Duration
}

// NewRelay connects a relay's producer to the cluster.
func NewRelay(owner string, pool *pgxpool.Pool, seeds []string, lease time.Duration) (*Relay, error) {
	client, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.DefaultProduceTopic(Topic),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil))) // hash of the key: one key, one partition
	if err != nil {
		return nil, fmt.Errorf("kafkalab: relay %s: %w", owner, err)
	}
	return &Relay{Owner: owner, Pool: pool, Client: client, Lease: lease}, nil
}

// Step claims a batch, publishes each message (acknowledged by the cluster)
// and marks it SENT. mark false stops after the publish: a relay that dies
// there. It returns how many it published.
func (r *Relay) Step(ctx context.Context, mark bool) (int, error) {
	batch, err := pglab.ClaimDue(ctx, r.Pool, r.Owner, 10, r.Lease)
	if err != nil {
		return 0, err
	}
	for _, c := range batch {
		value, err := json.Marshal(broker.Envelope{ID: c.MessageID, Event: c.Record})
		if err != nil {
			return 0, err
		}
		rec := &kgo.Record{Key: []byte(c.Record.AggregateID), Value: value,
			Headers: []kgo.RecordHeader{{Key: "message-id", Value: []byte(c.MessageID)}}}
		if err := r.Client.ProduceSync(ctx, rec).FirstErr(); err != nil {
			return 0, fmt.Errorf("kafkalab: publish %s: %w", c.MessageID, err)
		}
		if mark {
			if _, err := pglab.MarkSent(ctx, r.Pool, r.Owner, c); err != nil {
				return 0, err
			}
		}
	}
	return len(batch), nil
}

// Delivered is one record billing read.
type Delivered struct {
	Envelope  broker.Envelope
	Partition int32
	Offset    int64
}

// Consumer is billing's Kafka consumer: a member of the group "billing"
// that commits its offsets itself, after it applied what it read.
type Consumer struct {
	Client *kgo.Client
	read   []*kgo.Record // read, not yet committed
}

// NewConsumer joins the billing group.
func NewConsumer(seeds []string) (*Consumer, error) {
	client, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumerGroup("billing"), kgo.ConsumeTopics(Topic),
		kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		return nil, fmt.Errorf("kafkalab: consumer: %w", err)
	}
	return &Consumer{Client: client}, nil
}

// Read polls until it has read n records, or the context ends.
func (c *Consumer) Read(ctx context.Context, n int) ([]Delivered, error) {
	var out []Delivered
	for len(out) < n {
		fetches := c.Client.PollFetches(ctx)
		if ctx.Err() != nil {
			return out, fmt.Errorf("kafkalab: read %d of %d: %w", len(out), n, ctx.Err())
		}
		if err := fetches.Err(); err != nil {
			return out, fmt.Errorf("kafkalab: read: %w", err)
		}
		var err error
		fetches.EachRecord(func(r *kgo.Record) {
			var env broker.Envelope
			if e := json.Unmarshal(r.Value, &env); e != nil && err == nil {
				err = fmt.Errorf("kafkalab: record %d/%d: %w", r.Partition, r.Offset, e)
			}
			out = append(out, Delivered{Envelope: env, Partition: r.Partition, Offset: r.Offset})
			c.read = append(c.read, r)
		})
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// Commit commits the offsets of everything read so far: billing applied it.
func (c *Consumer) Commit(ctx context.Context) error {
	if err := c.Client.CommitRecords(ctx, c.read...); err != nil {
		return fmt.Errorf("kafkalab: commit: %w", err)
	}
	c.read = nil
	return nil
}
