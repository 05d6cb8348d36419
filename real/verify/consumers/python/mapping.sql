-- The Python consumer's own names over the contract's billing tables
-- (verify/CONSUMERS.md, "Your own names"): views it writes through, and
-- the tables of its inbox, made here before any instance starts.
CREATE VIEW ledger_entries AS
	SELECT id, event_id, order_id, sequence AS order_version, kind,
	       amount_minor AS amount_cents, currency
	FROM billing_ledger;

CREATE VIEW order_accounts AS
	SELECT order_id, currency, billed_minor AS billed_cents, cancelled
	FROM billing_accounts;

CREATE VIEW dead_letters AS
	SELECT id, event_id, partition AS kafka_partition, "offset" AS kafka_offset, reason AS error
	FROM billing_dead_letters;

-- The inbox: the version of each order applied last, and the events that
-- wait behind a gap.
CREATE TABLE order_versions (
	order_id TEXT PRIMARY KEY,
	version  INT  NOT NULL
);
CREATE TABLE parked_events (
	order_id     TEXT   NOT NULL,
	version      INT    NOT NULL,
	event_id     TEXT   NOT NULL,
	event_type   TEXT   NOT NULL,
	amount_cents BIGINT NOT NULL,
	currency     TEXT   NOT NULL,
	PRIMARY KEY (order_id, version)
);
