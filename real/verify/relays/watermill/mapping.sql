-- watermill-sql's PostgreSQL schema (DefaultPostgreSQLSchema and
-- DefaultPostgreSQLOffsetsAdapter, v4) over the contract's outbox table
-- (verify/CONTRACT.md, "Your own names"), for the forwarder's topic
-- "outbox".
--
-- Messages: the view watermill_outbox shows each outbox row as the
-- service's forwarder.Publisher would have written it: the envelope
-- naming the destination topic, with the event as its message (uuid: the
-- event id; payload: the row's payload; metadata: the aggregate's id as
-- the partition key), in the transaction that wrote the row
-- (transaction_id, a column the outbox gains here) at its offset (id).
ALTER TABLE outbox ADD COLUMN transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id();

CREATE VIEW watermill_outbox AS
	SELECT id AS "offset", event_id AS uuid, created_at,
	       json_build_object(
	           'destination_topic', 'orders',
	           'uuid', event_id,
	           'payload', encode(convert_to(payload::text, 'UTF8'), 'base64'),
	           'metadata', json_build_object('partition_key', aggregate_id)) AS payload,
	       NULL::json AS metadata,
	       transaction_id
	FROM outbox;

-- Offsets: Watermill's own table, as its schema initialisation makes it.
CREATE TABLE watermill_offsets_outbox (
	consumer_group VARCHAR(255) NOT NULL,
	offset_acked BIGINT,
	last_processed_transaction_id xid8 NOT NULL,
	PRIMARY KEY (consumer_group)
);

-- Sent: the forwarder acknowledges a message by moving its consumer
-- group's offset past it, in the transaction that read it; it never reads
-- a message at or before that offset again (its query takes rows after
-- (last_processed_transaction_id, offset_acked) only). That is the
-- contract's SENT, set in the same transaction.
CREATE FUNCTION watermill_offsets_sent() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE outbox SET status = 'SENT', processed_at = now()
	WHERE status NOT IN ('SENT', 'DEAD_LETTER')
	  AND (transaction_id, id) <= (NEW.last_processed_transaction_id, NEW.offset_acked);
	RETURN NEW;
END $$;
CREATE TRIGGER watermill_offsets_sent AFTER INSERT OR UPDATE ON watermill_offsets_outbox
	FOR EACH ROW EXECUTE FUNCTION watermill_offsets_sent();
