-- seat_events, cheaper for the transaction that changes seats: one row per
-- statement and show (the changed seats as an array) instead of one per
-- seat, in an unlogged table, so the queue writes no WAL of its own.
--
-- Unlogged is safe here because an event only ever matters while the
-- server that holds it keeps running: a crash empties the table, but it
-- also drops every listener's connection, and a listener resyncs all its
-- viewers after every reconnect (internal/live), which covers whatever the
-- lost events would have said. The same holds after a failover to a
-- standby, which never had the table's rows.
ALTER TABLE seat_events SET UNLOGGED;
ALTER TABLE seat_events ADD COLUMN seat_ids text[];
UPDATE seat_events SET seat_ids = ARRAY[seat_id];
ALTER TABLE seat_events ALTER COLUMN seat_ids SET NOT NULL;
ALTER TABLE seat_events DROP COLUMN seat_id;

CREATE OR REPLACE FUNCTION record_seat_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO seat_events (show_id, seat_ids)
    SELECT show_id, array_agg(seat_id) FROM changed GROUP BY show_id;
    RETURN NULL;
END $$;
