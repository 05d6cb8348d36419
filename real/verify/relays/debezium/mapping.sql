-- Debezium's PostgreSQL connector reads the outbox's inserts through a
-- publication (its default name, dbz_publication). It must exist before
-- the first row: pgoutput looks publications up as of each change it
-- decodes. The harness creates the slot (--sent-by slot, OUTBOX_SLOT).
CREATE PUBLICATION dbz_publication FOR TABLE outbox WITH (publish = 'insert');
