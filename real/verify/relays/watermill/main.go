// Command watermill is Watermill's forwarder (components/forwarder) as an
// outbox relay graded by labrun-real verify (verify/CONTRACT.md): it reads
// the messages watermill-sql's PostgreSQL schema keeps, which mapping.sql
// lays over the contract's outbox table, and publishes each to Kafka with
// watermill-kafka, acknowledging it (and so moving the consumer group's
// offset, which the mapping turns into SENT) once the broker acknowledged
// it.
//
// What is ours is the wiring below: which subscriber, which publisher,
// their settings, and one line logged for each message forwarded. The
// reading, the ordering by transaction id, the offsets, the unwrapping of
// the envelope, the retries and the publishing are Watermill's.
//
//	verify/relays/watermill/verify --workers 3     (from real/)
//
// builds it into bin/relay and runs labrun-real verify --relay
// verify/relays/watermill/bin/relay --mapping
// verify/relays/watermill/mapping.sql --id-header _watermill_message_uuid
// (Watermill's own header carries the message's uuid, the event id).
package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/IBM/sarama"
	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill-kafka/v3/pkg/kafka"
	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/components/forwarder"
	"github.com/ThreeDotsLabs/watermill/message"
	_ "github.com/jackc/pgx/v5/stdlib"
)

// forwarderTopic is the SQL topic the service's forwarder.Publisher
// writes to: watermill-sql keeps it in watermill_outbox, with the
// consumer groups' offsets in watermill_offsets_outbox.
const forwarderTopic = "outbox"

// partitionKey is the metadata the service sets on each message: the
// aggregate's id, the Kafka key that keeps one aggregate's events in order.
const partitionKey = "partition_key"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "watermill relay:", err)
		os.Exit(1)
	}
}

func run() error {
	instance := os.Getenv("OUTBOX_INSTANCE_ID")
	db, err := sql.Open("pgx", os.Getenv("OUTBOX_DATABASE_URL"))
	if err != nil {
		return err
	}
	defer db.Close()
	logger := watermill.NewStdLoggerWithOut(os.Stderr, false, false)
	sub, err := wsql.NewSubscriber(wsql.BeginnerFromStdSQL(db), wsql.SubscriberConfig{
		ConsumerGroup:  "outbox-relay",
		SchemaAdapter:  wsql.DefaultPostgreSQLSchema{},
		OffsetsAdapter: wsql.DefaultPostgreSQLOffsetsAdapter{},
		// mapping.sql made the tables, as a team's migration would.
		InitializeSchema: false,
	}, logger)
	if err != nil {
		return err
	}
	cfg := kafka.DefaultSaramaSyncPublisherConfig()
	cfg.ClientID = instance
	// Kafka's default partitioner (murmur2 of the key), as the contract's
	// rule 2 asks; Sarama's default hashes with FNV-1a.
	cfg.Producer.Partitioner = sarama.NewMurmur2Partitioner
	pub, err := kafka.NewPublisher(kafka.PublisherConfig{
		Brokers: strings.Split(os.Getenv("OUTBOX_BROKERS"), ","),
		Marshaler: kafka.NewWithPartitioningMarshaler(func(_ string, msg *message.Message) (string, error) {
			return msg.Metadata.Get(partitionKey), nil
		}),
		OverwriteSaramaConfig: cfg,
	}, logger)
	if err != nil {
		return err
	}
	middlewares := []message.HandlerMiddleware{said}
	if os.Getenv("WATERMILL_MISTAKE") == "ack-before-publish" {
		middlewares = append(middlewares, ackBeforePublish)
	}
	fwd, err := forwarder.NewForwarder(sub, pub, logger, forwarder.Config{
		ForwarderTopic: forwarderTopic,
		// The contract gives an instance three seconds to end on SIGTERM.
		CloseTimeout: 2 * time.Second,
		Middlewares:  middlewares,
	})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	fmt.Fprintf(os.Stderr, "%s: forwarding %s to Kafka\n", instance, forwarderTopic)
	return fwd.Run(ctx)
}

// said logs each message the forwarder handled, by its id.
func said(h message.HandlerFunc) message.HandlerFunc {
	return func(msg *message.Message) ([]*message.Message, error) {
		out, err := h(msg)
		if err != nil {
			fmt.Fprintf(os.Stderr, "forwarding %s failed: %v\n", msg.UUID, err)
		} else {
			fmt.Fprintf(os.Stderr, "forwarded %s\n", msg.UUID)
		}
		return out, err
	}
}

// ackBeforePublish is the relay with one change, for the harness's own
// check of mapping.sql (WATERMILL_MISTAKE=ack-before-publish; CI's
// ecosystem job): the message is acknowledged before the forwarder
// publishes it.
//
// MISTAKE: the consumer group's offset, and with it SENT, moves past a
// message whose publish may still fail; the router's nack after a failed
// publish comes too late to undo the ack (LOST at broker-outage).
func ackBeforePublish(h message.HandlerFunc) message.HandlerFunc {
	return func(msg *message.Message) ([]*message.Message, error) {
		msg.Ack()
		return h(msg)
	}
}
