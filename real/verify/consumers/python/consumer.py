#!/usr/bin/env python3
"""A billing consumer in Python, written from the contract page alone.

Chapter 003's idempotent receiver with chapter 001's per-order sequence:
one transaction per record locks the order's row of the inbox
(order_versions), and skips the event (applied before), parks it (an
earlier one is missing) or writes its effect with the parked events it
lets through. Offsets are committed by librdkafka's auto-commit, but only
those stored after the transaction committed (enable.auto.offset.store
off, store_offsets after the effect): the contract's "auto-commit, if it
commits only what you applied".

It writes through its own names, views over the contract's tables made
by mapping.sql, which holds its inbox's tables too:

    labrun-real verify --consumer 'python3 verify/consumers/python/consumer.py' \\
        --mapping verify/consumers/python/mapping.sql

Needs psycopg2 and confluent-kafka (Debian: python3-psycopg2,
python3-confluent-kafka).
"""

import json
import os
import signal
import sys
import time

import psycopg2
from confluent_kafka import Consumer, KafkaError

DECIMALS = {"EUR": 2, "USD": 2, "JPY": 0}
KNOWN = {("OrderAccepted", "1"), ("OrderAmended", "1"), ("OrderCancelled", "1")}

stopping = False


def stop(signum, frame):
    global stopping
    stopping = True


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


class Unreadable(Exception):
    """A record no retry will make readable: a dead letter."""


def cents(amount, currency):
    """Reads "19.99" EUR as 1999, "1200" JPY as 1200: digit by digit."""
    if currency not in DECIMALS:
        raise Unreadable("currency %r: want EUR, USD or JPY" % currency)
    digits = DECIMALS[currency]
    whole, point, frac = str(amount).partition(".")
    if (point != "") != (digits > 0) or len(frac) != digits or not (whole + frac).isdigit() or not whole:
        raise Unreadable("amount %r: want digits with %d after the point for %s" % (amount, digits, currency))
    value = int(whole + frac)
    if value <= 0:
        raise Unreadable("amount %r: want a positive amount" % amount)
    return value


def read(msg):
    """Returns (event_id, type, order_id, sequence, cents, currency)."""
    headers = {k: (v or b"").decode("utf-8", "replace") for k, v in (msg.headers() or [])}
    event_id, typ, version = headers.get("event-id", ""), headers.get("event-type", ""), headers.get("event-version", "")
    if not event_id:
        raise Unreadable("no event-id header")
    if (typ, version) not in KNOWN:
        raise Unreadable("%s version %r: this consumer knows version 1 of its three events" % (typ, version))
    try:
        value = json.loads(msg.value())
    except ValueError as e:
        raise Unreadable("value: %s" % e)
    key = (msg.key() or b"").decode("utf-8", "replace")
    order_id, seq = value.get("orderId"), value.get("sequence")
    if not order_id or order_id != key or not isinstance(seq, int) or seq < 1:
        raise Unreadable("orderId %r, sequence %r, key %r" % (order_id, seq, key))
    if typ == "OrderCancelled":
        return event_id, typ, order_id, seq, 0, ""
    money = value.get("total" if typ == "OrderAccepted" else "amount")
    if not isinstance(money, dict):
        raise Unreadable("%s without its amount" % typ)
    return event_id, typ, order_id, seq, cents(money.get("amount"), money.get("currency")), money.get("currency")


def effect(cur, event_id, typ, order_id, seq, amount, currency):
    """Writes an event's effect: a ledger entry, and the order's account."""
    kind = {"OrderAccepted": "invoice", "OrderAmended": "line", "OrderCancelled": "credit"}[typ]
    if kind == "credit":
        cur.execute("SELECT billed_cents, currency FROM order_accounts WHERE order_id = %s FOR UPDATE", (order_id,))
        billed, currency = cur.fetchone()
        amount = -billed
    cur.execute("INSERT INTO ledger_entries (event_id, order_id, order_version, kind, amount_cents, currency) "
                "VALUES (%s, %s, %s, %s, %s, %s)", (event_id, order_id, seq, kind, amount, currency))
    if kind == "invoice":
        cur.execute("INSERT INTO order_accounts (order_id, currency, billed_cents, cancelled) VALUES (%s, %s, %s, false) "
                    "ON CONFLICT (order_id) DO UPDATE SET currency = excluded.currency, "
                    "billed_cents = excluded.billed_cents, cancelled = false", (order_id, currency, amount))
    elif kind == "line":
        cur.execute("UPDATE order_accounts SET billed_cents = billed_cents + %s WHERE order_id = %s", (amount, order_id))
    else:
        cur.execute("UPDATE order_accounts SET billed_cents = 0, cancelled = true WHERE order_id = %s", (order_id,))


def handle(conn, msg):
    """Handles one record in one transaction; returns what it did."""
    event_id, typ, order_id, seq, amount, currency = read(msg)
    with conn:  # commits on success, rolls back on an exception
        with conn.cursor() as cur:
            cur.execute("INSERT INTO order_versions (order_id, version) VALUES (%s, 0) ON CONFLICT DO NOTHING", (order_id,))
            cur.execute("SELECT version FROM order_versions WHERE order_id = %s FOR UPDATE", (order_id,))
            applied = cur.fetchone()[0]
            if seq <= applied:
                return "%s (%s#%d) skipped: applied before" % (event_id, order_id, seq)
            if seq > applied + 1:
                cur.execute("INSERT INTO parked_events (order_id, version, event_id, event_type, amount_cents, currency) "
                            "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                            (order_id, seq, event_id, typ, amount, currency))
                return "%s (%s#%d) parked: %s is at #%d" % (event_id, order_id, seq, order_id, applied)
            said = []
            while True:
                effect(cur, event_id, typ, order_id, seq, amount, currency)
                said.append(event_id)
                applied = seq
                cur.execute("DELETE FROM parked_events WHERE order_id = %s AND version = %s "
                            "RETURNING event_id, event_type, amount_cents, currency", (order_id, applied + 1))
                row = cur.fetchone()
                if row is None:
                    break
                event_id, typ, amount, currency = row
                seq = applied + 1
            cur.execute("UPDATE order_versions SET version = %s WHERE order_id = %s", (applied, order_id))
            return "applied " + " ".join(said)


def dead_letter(conn, msg, cause):
    headers = {k: (v or b"").decode("utf-8", "replace") for k, v in (msg.headers() or [])}
    with conn:
        with conn.cursor() as cur:
            cur.execute("INSERT INTO dead_letters (event_id, kafka_partition, kafka_offset, error) "
                        "SELECT %s, %s, %s, %s WHERE NOT EXISTS "
                        "(SELECT 1 FROM dead_letters WHERE kafka_partition = %s AND kafka_offset = %s)",
                        (headers.get("event-id") or None, msg.partition(), msg.offset(), str(cause),
                         msg.partition(), msg.offset()))
    log("dead letter p%d/%d: %s" % (msg.partition(), msg.offset(), cause))


def connect(url):
    while not stopping:
        try:
            return psycopg2.connect(url)
        except psycopg2.Error as e:
            log("database: %s (pause 200 ms)" % str(e).strip())
            time.sleep(0.2)
    return None


def process(state, msg):
    """Handles a record until it is applied, skipped, parked or a dead
    letter; every database error is transient: reconnect and try again."""
    pause = 0.05
    while not stopping:
        try:
            try:
                log(handle(state["conn"], msg))
            except Unreadable as e:
                dead_letter(state["conn"], msg, e)
            return True
        except psycopg2.Error as e:
            log("p%d/%d: %s (pause %d ms)" % (msg.partition(), msg.offset(), str(e).strip(), pause * 1000))
            time.sleep(pause)
            pause = min(pause * 2, 1.0)
            if state["conn"].closed:
                state["conn"] = connect(state["url"])
    return False


def main():
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    env = os.environ
    state = {"url": env["BILLING_DATABASE_URL"]}
    state["conn"] = connect(state["url"])
    consumer = Consumer({
        "bootstrap.servers": env["BILLING_BROKERS"],
        "group.id": env["BILLING_GROUP"],
        "client.id": env["BILLING_INSTANCE_ID"],
        "session.timeout.ms": int(env["BILLING_SESSION_TIMEOUT_MS"]),
        "heartbeat.interval.ms": int(env["BILLING_HEARTBEAT_INTERVAL_MS"]),
        "auto.offset.reset": "earliest",
        "enable.auto.commit": True,
        "auto.commit.interval.ms": 200,
        "enable.auto.offset.store": False,  # an offset is stored after its effect committed
    })
    consumer.subscribe([env["BILLING_TOPIC"]])
    try:
        while not stopping:
            msg = consumer.poll(0.2)
            if msg is None:
                continue
            if msg.error():
                if msg.error().code() != KafkaError._PARTITION_EOF:
                    log("fetch: %s (polling on)" % msg.error())
                continue
            if not process(state, msg):
                break
            consumer.store_offsets(message=msg)
    finally:
        consumer.close()  # commits the offsets stored, and leaves the group
        if state["conn"] is not None:
            state["conn"].close()


if __name__ == "__main__":
    main()
