package verify

import "time"

// BillingSchema is the billing database of the consumer contract
// (CONSUMERS.md): the ledger of business effects, one row per event
// applied, the account of each order, and the dead letters. Amounts are in
// the currency's minor units. The tables have no unique constraint beyond
// their keys: keeping an effect to one row per event is the consumer's
// job, and the difference between the reference and the mistakes.
const BillingSchema = `
CREATE TABLE billing_ledger (
	id           BIGSERIAL PRIMARY KEY,
	event_id     TEXT   NOT NULL,
	order_id     TEXT   NOT NULL,
	sequence     INT    NOT NULL,
	kind         TEXT   NOT NULL,
	amount_minor BIGINT NOT NULL,
	currency     TEXT   NOT NULL
);
CREATE TABLE billing_accounts (
	order_id     TEXT    PRIMARY KEY,
	currency     TEXT    NOT NULL,
	billed_minor BIGINT  NOT NULL,
	cancelled    BOOLEAN NOT NULL DEFAULT false
);
CREATE TABLE billing_dead_letters (
	id        BIGSERIAL PRIMARY KEY,
	event_id  TEXT,
	partition INT    NOT NULL,
	"offset"  BIGINT NOT NULL,
	reason    TEXT   NOT NULL
);`

// labBillingSchema is the harness's part of the billing database, which a
// consumer does not touch:
//
//   - every ledger row written draws a number (lab_effect_n), committed or
//     not; the harness holds the written effects whose numbers are in
//     lab_gate at an advisory lock of its own (gateLockClass, n), so that
//     it can act while the consumer's transaction is open, and reads what
//     the row is from the backend's application_name meanwhile;
//   - every ledger row committed is numbered again when its transaction
//     commits (a deferred trigger: lab_effects, in commit order) and
//     announced on the channel lab_effects;
//   - the ledger is append-only.
const labBillingSchema = `
CREATE SEQUENCE lab_effect_n;
CREATE TABLE lab_gate (at BIGINT PRIMARY KEY);
CREATE TABLE lab_effects (
	n         BIGSERIAL PRIMARY KEY,
	ledger_id BIGINT NOT NULL,
	backend   INT    NOT NULL
);
CREATE FUNCTION lab_effect_written() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	n BIGINT := nextval('lab_effect_n');
	app TEXT;
BEGIN
	IF EXISTS (SELECT 1 FROM lab_gate WHERE at = n) THEN
		-- What the row is, where the harness can read it while it waits.
		app := current_setting('application_name');
		PERFORM set_config('application_name', concat_ws(' ', NEW.event_id, NEW.order_id || '#' || NEW.sequence, NEW.kind), false);
		PERFORM pg_advisory_xact_lock_shared(4343, n::int);
		PERFORM set_config('application_name', app, false);
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER lab_effect_written AFTER INSERT ON billing_ledger
	FOR EACH ROW EXECUTE FUNCTION lab_effect_written();
CREATE FUNCTION lab_effect_committed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO lab_effects (ledger_id, backend) VALUES (NEW.id, pg_backend_pid());
	PERFORM pg_notify('lab_effects', concat_ws(' ', NEW.id, pg_backend_pid(), NEW.event_id, NEW.order_id || '#' || NEW.sequence,
		NEW.kind, NEW.amount_minor, NEW.currency));
	RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER lab_effect_committed AFTER INSERT ON billing_ledger
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION lab_effect_committed();
CREATE FUNCTION lab_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'billing_ledger is append-only: write a new row (a credit), never change or delete one';
END $$;
CREATE TRIGGER lab_ledger_append_only BEFORE UPDATE OR DELETE ON billing_ledger
	FOR EACH ROW EXECUTE FUNCTION lab_ledger_append_only();`

// gateLockClass is the first key of the advisory locks the gate holds.
const gateLockClass = 4343

// The environment a consumer instance is started with.
const (
	EnvBillingDatabaseURL = "BILLING_DATABASE_URL"          // postgres://… of the billing database
	EnvBillingBrokers     = "BILLING_BROKERS"               // host:port[,host:port…] of the Kafka-protocol broker
	EnvBillingTopic       = "BILLING_TOPIC"                 // the topic to read
	EnvBillingGroup       = "BILLING_GROUP"                 // the consumer group
	EnvBillingInstance    = "BILLING_INSTANCE_ID"           // billing-1, billing-2, billing-3: stable across restarts
	EnvSessionTimeout     = "BILLING_SESSION_TIMEOUT_MS"    // the group session timeout to use
	EnvHeartbeatInterval  = "BILLING_HEARTBEAT_INTERVAL_MS" // the heartbeat interval to use
)

// The record headers the harness publishes with each event.
const (
	HeaderEventID      = "event-id"
	HeaderEventType    = "event-type"
	HeaderEventVersion = "event-version"
)

// Group is the consumer group of the consumer rounds.
const Group = "billing"

// SessionTimeout is the group session timeout handed to consumers, and
// HeartbeatInterval their heartbeat: a stop past the session timeout
// makes an instance a zombie, whose partitions another instance takes.
const (
	SessionTimeout    = 3 * time.Second
	HeartbeatInterval = 300 * time.Millisecond
)
