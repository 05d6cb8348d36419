#!/usr/bin/env python3
"""An outbox relay in Python, written from the contract page alone.

It is chapter 003's relay: one transaction claims a batch of unprocessed
rows with FOR UPDATE SKIP LOCKED, publishes them to Kafka keyed by their
aggregate, and sets processed_at before it commits; the row locks are the
claim, so no lease is needed. One addition to the chapter's query: a row
waits while an earlier row of its aggregate is unprocessed, so that one
key's events reach Kafka in order even with several instances.

It reads chapter 003's table, outbox_events with processed_at, through the
mapping in mapping.sql (a view over the contract's outbox table):

    labrun-real verify --relay 'python3 verify/relays/python/relay.py' \\
        --mapping verify/relays/python/mapping.sql

Needs psycopg2 and confluent-kafka (Debian: python3-psycopg2,
python3-confluent-kafka).
"""

import os
import signal
import sys
import time

import psycopg2
from confluent_kafka import Producer

CLAIM = """
SELECT id, event_id, aggregate_id, payload::text FROM outbox_events o
WHERE processed_at IS NULL
  AND NOT EXISTS (SELECT 1 FROM outbox_events e
                  WHERE e.aggregate_id = o.aggregate_id AND e.id < o.id AND e.processed_at IS NULL)
ORDER BY id
LIMIT 100
FOR UPDATE SKIP LOCKED
"""

stopping = False


def stop(signum, frame):
    global stopping
    stopping = True


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def process_batch(conn, producer, topic, header):
    """Claims, publishes and marks one batch in one transaction; returns
    how many rows it claimed."""
    with conn:  # commits on success, rolls back on an exception
        with conn.cursor() as cur:
            cur.execute(CLAIM)
            rows = cur.fetchall()
            if not rows:
                return 0
            log("claimed " + " ".join(r[1] for r in rows))
            failed = []

            def report(err, msg):
                if err is not None:
                    failed.append(err)

            for _id, event_id, aggregate_id, payload in rows:
                producer.produce(topic, key=aggregate_id, value=payload,
                                 headers=[(header, event_id)], on_delivery=report)
            left = producer.flush(10)
            if left or failed:
                raise RuntimeError("publish failed: %s (%d undelivered)" % (failed[:1], left))
            cur.execute("UPDATE outbox_events SET processed_at = now() WHERE id = ANY(%s)",
                        ([r[0] for r in rows],))
            return len(rows)


def main():
    signal.signal(signal.SIGTERM, stop)
    env = os.environ
    topic, header = env["OUTBOX_TOPIC"], env["OUTBOX_ID_HEADER"]
    producer = Producer({
        "bootstrap.servers": env["OUTBOX_BROKERS"],
        "client.id": env["OUTBOX_INSTANCE_ID"],
        "enable.idempotence": True,
        "partitioner": "murmur2_random",  # Kafka's default, as the Java client's
        "message.timeout.ms": 5000,
        # librdkafka sends a produce request per partition: at its default
        # retry backoff (100 ms) three partitions with messages retry at
        # 30 requests a second while the broker refuses, above the
        # contract's pace (one per 50 ms per instance); seen as STORM once
        # in CI on a loaded machine (136 refused requests, 124 allowed).
        "retry.backoff.ms": 200,
    })
    conn, pause = None, 0.1
    while not stopping:
        try:
            if conn is None or conn.closed:
                conn = psycopg2.connect(env["OUTBOX_DATABASE_URL"])
            n = process_batch(conn, producer, topic, header)
            pause = 0.1
            if n == 0:
                time.sleep(0.05)
        except Exception as e:  # the database or the broker: back off and go on
            log("%s (pause %.1fs)" % (str(e).strip(), pause))
            if conn is not None and conn.closed:
                conn = None
            time.sleep(pause)
            pause = min(pause * 2, 2.0)


if __name__ == "__main__":
    main()
