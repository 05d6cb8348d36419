-- Chapter 003's table over the contract's outbox (verify/CONTRACT.md,
-- "Your own names"): a view with the chapter's names, and a trigger that
-- turns the chapter's "processed" (processed_at set) into the contract's
-- status SENT.
CREATE VIEW outbox_events AS
	SELECT id, event_id, aggregate_type, aggregate_id, event_type, payload,
	       created_at, processed_at, attempts, last_error
	FROM outbox
	WHERE status <> 'DEAD_LETTER';

CREATE FUNCTION outbox_events_processed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.processed_at IS NOT NULL AND OLD.processed_at IS NULL THEN
		NEW.status := 'SENT';
	END IF;
	RETURN NEW;
END $$;

CREATE TRIGGER outbox_events_processed BEFORE UPDATE OF processed_at ON outbox
	FOR EACH ROW EXECUTE FUNCTION outbox_events_processed();
