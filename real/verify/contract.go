package verify

import "time"

// Schema is the outbox table of the contract (CONTRACT.md): chapter
// 003's table with chapter 000's status, and the columns a relay may use
// as it likes (attempts, next_attempt_at, last_error, lease_owner,
// lease_until). A row is sent once its status is SENT or it is deleted;
// DEAD_LETTER is a row given up on.
const Schema = `
CREATE TABLE outbox (
	id              BIGSERIAL   PRIMARY KEY,
	event_id        TEXT        NOT NULL UNIQUE,
	aggregate_type  TEXT        NOT NULL,
	aggregate_id    TEXT        NOT NULL,
	event_type      TEXT        NOT NULL,
	event_version   INT         NOT NULL,
	sequence        INT         NOT NULL,
	payload         JSONB       NOT NULL,
	created_at      TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
	status          TEXT        NOT NULL DEFAULT 'PENDING'
	                CHECK (status IN ('PENDING', 'IN_FLIGHT', 'SENT', 'FAILED', 'DEAD_LETTER')),
	processed_at    TIMESTAMPTZ,
	attempts        INT         NOT NULL DEFAULT 0,
	next_attempt_at TIMESTAMPTZ,
	last_error      TEXT,
	lease_owner     TEXT,
	lease_until     TIMESTAMPTZ
);
CREATE INDEX outbox_unsent ON outbox (aggregate_id, id) WHERE status <> 'SENT';`

// labSchema is the harness's own part of the database, which a relay
// does not touch: the orders the service keeps, and the history of every
// change of a row's status and lease, written by the transaction that
// made it (so it holds exactly what committed), with when and by which
// backend (the harness maps backends to relay processes, see writerWatch).
const labSchema = `
CREATE TABLE lab_orders (
	id      TEXT PRIMARY KEY,
	version INT NOT NULL,
	body    JSONB NOT NULL
);
CREATE TABLE lab_outbox_history (
	n          BIGSERIAL PRIMARY KEY,
	at         TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
	backend    INT NOT NULL DEFAULT pg_backend_pid(),
	event_id   TEXT NOT NULL,
	old_status TEXT NOT NULL,
	new_status TEXT, -- NULL: deleted
	old_owner  TEXT,
	old_until  TIMESTAMPTZ,
	new_owner  TEXT,
	new_until  TIMESTAMPTZ
);
CREATE FUNCTION lab_outbox_history() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' THEN
		INSERT INTO lab_outbox_history (event_id, old_status, new_status, old_owner, old_until)
			VALUES (OLD.event_id, OLD.status, NULL, OLD.lease_owner, OLD.lease_until);
		RETURN OLD;
	END IF;
	INSERT INTO lab_outbox_history (event_id, old_status, new_status, old_owner, old_until, new_owner, new_until)
		VALUES (OLD.event_id, OLD.status, NEW.status, OLD.lease_owner, OLD.lease_until, NEW.lease_owner, NEW.lease_until);
	RETURN NEW;
END $$;
CREATE TRIGGER lab_outbox_history AFTER UPDATE OR DELETE ON outbox
	FOR EACH ROW EXECUTE FUNCTION lab_outbox_history();`

// The environment a relay instance is started with.
const (
	EnvDatabaseURL = "OUTBOX_DATABASE_URL" // postgres://… of the database that holds the outbox
	EnvBrokers     = "OUTBOX_BROKERS"      // host:port[,host:port…] of the Kafka-protocol broker
	EnvTopic       = "OUTBOX_TOPIC"        // the topic to publish to
	EnvInstance    = "OUTBOX_INSTANCE_ID"  // relay-1, relay-2, relay-3: stable across restarts
	EnvLease       = "OUTBOX_LEASE_MS"     // the lease a claim lasts, in milliseconds
	EnvIDHeader    = "OUTBOX_ID_HEADER"    // the record header that carries event_id
	EnvSlot        = "OUTBOX_SLOT"         // with --sent-by slot: the logical replication slot to stream from
)

// Topic is the topic relays publish to; Partitions is how many it has.
const (
	Topic      = "orders"
	Partitions = 3
)

// DefaultLease is the lease handed to relays unless --lease says
// otherwise; DefaultIDHeader the header name unless --id-header does.
const (
	DefaultLease    = 2 * time.Second
	DefaultIDHeader = "event-id"
)

// RefusalPace is the contract's bound on a relay's requests while the
// broker refuses produces: on average at most one produce request per
// RefusalPace per instance (every Kafka client's default retry backoff
// keeps to it; a loop that retries at once does not).
const RefusalPace = 50 * time.Millisecond
